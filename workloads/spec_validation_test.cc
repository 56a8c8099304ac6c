#include "workloads/spec_validation.h"

#include <string>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

using torchscan::v1::WorkloadSpec;

// The spec written in proto text format, e.g. "model { builtin: linear }".
WorkloadSpec Spec(const std::string& text) {
  WorkloadSpec spec;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &spec)) << text;
  return spec;
}

// A TorchScript model with one input.
WorkloadSpec Script() { return Spec("model { torchscript { path: '/models/mlp.pt' } } inputs {}"); }

void ExpectInvalid(const WorkloadSpec& spec, const std::string& text) {
  const absl::Status s = ValidateWorkloadSpec(spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << text;
  EXPECT_NE(s.message().find(text), absl::string_view::npos) << s.message();
}

TEST(ValidateWorkloadSpec, AcceptsBuiltinsAndTorchScriptWithInputs) {
  EXPECT_TRUE(ValidateWorkloadSpec(Spec("model { builtin: linear }")).ok());
  WorkloadSpec script = Script();
  script.set_freeze(true);
  script.set_work_units(8);
  script.set_work_unit("tokens");
  EXPECT_TRUE(ValidateWorkloadSpec(script).ok());
}

TEST(ValidateWorkloadSpec, NamesTheFieldAndTheFix) {
  ExpectInvalid(WorkloadSpec(), "model: not set; set model.builtin (");
  ExpectInvalid(Spec("model { builtin: builtin_unspecified }"), "model.builtin: choose ");
  WorkloadSpec freeze = Spec("model { builtin: resnet18 }");
  freeze.set_optimize_for_inference(true);
  ExpectInvalid(freeze, "freeze / optimize_for_inference apply to TorchScript models only");
  WorkloadSpec units = Spec("model { builtin: linear }");
  units.set_work_unit("rows");
  ExpectInvalid(units, "work_units / work_unit apply to TorchScript models only");
  WorkloadSpec no_inputs = Script();
  no_inputs.clear_inputs();
  ExpectInvalid(no_inputs, "inputs: a TorchScript model needs its inputs");
  WorkloadSpec negative = Script();
  negative.set_work_units(-2);
  ExpectInvalid(negative, "work_units is -2; it must be >= 0");
  WorkloadSpec mode = Script();
  mode.set_execution_mode(static_cast<WorkloadSpec::ExecutionMode>(99));
  ExpectInvalid(mode, "dtype / execution_mode: unknown enum value");
}

TEST(CheckInputMetadataKeys, RefusesTorchScansOwnKeys) {
  WorkloadSpec spec = Spec("model { builtin: linear }");
  (*spec.mutable_input_metadata())["dataset"] = "imagenet";
  EXPECT_TRUE(CheckInputMetadataKeys(spec).ok());
  (*spec.mutable_input_metadata())["input.x.seed"] = "3";
  const absl::Status s = CheckInputMetadataKeys(spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "input_metadata: key \"input.x.seed\" is TorchScan's own (seed, input.*); choose another name");
}

}  // namespace
}  // namespace torchscan::workloads
