#include "worker/result_labels.h"

#include <gtest/gtest.h>

namespace torchscan::worker {
namespace {

v1::WorkloadSpec Builtin(v1::ModelSpec::Builtin builtin) {
  v1::WorkloadSpec w;
  w.mutable_model()->set_builtin(builtin);
  return w;
}

v1::WorkloadSpec Script(const std::string& source_name, const std::string& path) {
  v1::WorkloadSpec w;
  v1::TorchScriptSpec* ts = w.mutable_model()->mutable_torchscript();
  if (!path.empty()) ts->set_path(path);
  else ts->set_module_bytes("bytes");
  ts->set_source_name(source_name);
  return w;
}

TEST(ModelName, BuiltinsByNameModulesByFileName) {
  EXPECT_EQ(ModelName(Builtin(v1::ModelSpec::resnet18)), "resnet18");
  EXPECT_EQ(ModelName(Script("/home/ann/models/mlp.pt", "")), "mlp.pt");
  EXPECT_EQ(ModelName(Script("mlp_opt.pt", "")), "mlp_opt.pt");
  EXPECT_EQ(ModelName(Script("", "/srv/shared/enc.pt")), "enc.pt");
  EXPECT_EQ(ModelName(Script("", "")), "TorchScript module");
  EXPECT_EQ(ModelName(Script("folder/", "")), "TorchScript module");
}

TEST(LabelResult, AReportGetsTheJobLabelAndItsModel) {
  v1::JobSpec spec;
  spec.set_label("mlp v1");
  *spec.mutable_measure()->mutable_workload() = Script("/tmp/mlp.pt", "");
  v1::JobResult result;
  result.mutable_report()->set_name("measurement");
  LabelResult(spec, &result);
  EXPECT_EQ(result.report().label(), "mlp v1");
  EXPECT_EQ(result.report().model(), "mlp.pt");
  EXPECT_EQ(result.report().name(), "measurement");
}

TEST(LabelResult, AComparisonAndBothRunsGetTheLabelEachRunItsOwnModel) {
  v1::JobSpec spec;
  spec.set_label("freeze trial");
  *spec.mutable_compare()->mutable_baseline() = Script("mlp.pt", "");
  *spec.mutable_compare()->mutable_candidate() = Script("mlp_opt.pt", "");
  v1::JobResult result;
  result.mutable_comparison()->mutable_before()->set_name("baseline");
  result.mutable_comparison()->mutable_after()->set_name("candidate");
  LabelResult(spec, &result);
  const v1::Comparison& c = result.comparison();
  EXPECT_EQ(c.label(), "freeze trial");
  EXPECT_EQ(c.before().label(), "freeze trial");
  EXPECT_EQ(c.after().label(), "freeze trial");
  EXPECT_EQ(c.before().model(), "mlp.pt");
  EXPECT_EQ(c.after().model(), "mlp_opt.pt");
}

TEST(LabelResult, AnEmptyResultStaysEmpty) {
  v1::JobSpec spec;
  spec.set_label("x");
  v1::JobResult result;
  LabelResult(spec, &result);
  EXPECT_FALSE(result.has_report());
  EXPECT_FALSE(result.has_comparison());
}

}  // namespace
}  // namespace torchscan::worker
