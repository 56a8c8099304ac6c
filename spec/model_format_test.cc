#include "spec/model_format.h"

#include <functional>
#include <string>

#include <gtest/gtest.h>

namespace torchscan::spec {
namespace {

v1::WorkloadSpec PackageWorkload() {
  v1::WorkloadSpec w;
  w.mutable_model()->mutable_aot_inductor()->set_package_bytes("PK...");
  w.mutable_model()->mutable_aot_inductor()->set_source_name("/home/a/model.pt2");
  w.add_inputs()->mutable_generated()->add_shape(4);
  return w;
}

TEST(ModelFormat, EverySourceCaseHasOneFormatAndErrorsListThemAll) {
  v1::WorkloadSpec w;
  w.mutable_model()->set_builtin(v1::ModelSpec::linear);
  EXPECT_EQ(FindModelFormat(w.model())->field(), "builtin");
  w.mutable_model()->mutable_torchscript();
  EXPECT_EQ(FindModelFormat(w.model())->field(), "torchscript");
  w.mutable_model()->mutable_aot_inductor();
  EXPECT_EQ(FindModelFormat(w.model())->field(), "aot_inductor");
  EXPECT_EQ(FindModelFormat(v1::ModelSpec()), nullptr);
  EXPECT_EQ(ModelFormats().size(), 3u);
  EXPECT_EQ(ModelFormatChoices(), "builtin (linear, resnet18, bert), torchscript or aot_inductor");
}

TEST(ModelFormat, APackageIsValidWithInputsAndRefusesWhatWouldChangeItsCompiledCode) {
  const ModelFormat& format = AotInductorFormat();
  EXPECT_TRUE(format.Validate("spec.measure.workload", PackageWorkload()).ok());
  const auto refused = [&](const std::function<void(v1::WorkloadSpec&)>& change) {
    v1::WorkloadSpec w = PackageWorkload();
    change(w);
    return std::string(format.Validate("spec.measure.workload", w).message());
  };
  EXPECT_EQ(refused([](v1::WorkloadSpec& w) { w.clear_inputs(); }),
            "spec.measure.workload.inputs: an AOTInductor package needs its inputs; add one InputSpec per argument");
  EXPECT_EQ(refused([](v1::WorkloadSpec& w) { w.mutable_model()->mutable_aot_inductor()->set_package_bytes(""); }),
            "spec.measure.workload.model.aot_inductor.package_bytes: is empty; send the bytes of a package written by "
            "torch._inductor.aoti_compile_and_package");
  EXPECT_EQ(refused([](v1::WorkloadSpec& w) { w.mutable_model()->mutable_aot_inductor()->clear_source(); }),
            "spec.measure.workload.model.aot_inductor: set path or package_bytes");
  EXPECT_NE(refused([](v1::WorkloadSpec& w) {
              w.set_dtype(v1::WorkloadSpec::bfloat16);
            }).find("spec.measure.workload.dtype: does not apply to an AOTInductor package"),
            std::string::npos);
  EXPECT_NE(refused([](v1::WorkloadSpec& w) { w.set_freeze(true); }).find("spec.measure.workload.freeze: "),
            std::string::npos);
  EXPECT_NE(refused([](v1::WorkloadSpec& w) { w.set_channels_last(true); }).find(".channels_last: "),
            std::string::npos);
  EXPECT_NE(refused([](v1::WorkloadSpec& w) {
              w.mutable_model()->mutable_aot_inductor()->set_model_name("../x");
            }).find(".model.aot_inductor.model_name: "),
            std::string::npos);
}

// The walkers of uploads and paths see a package's file as they see a module's.
TEST(ModelFormat, AFilesViewStripAndSetWorkForBothFileFormats) {
  v1::WorkloadSpec w = PackageWorkload();
  const ModelFormat& format = *FindModelFormat(w.model());
  std::optional<ModelFileView> file = format.File(w.model());
  ASSERT_TRUE(file.has_value());
  EXPECT_EQ(file->field, "model.aot_inductor");
  EXPECT_EQ(file->bytes_field, "package_bytes");
  EXPECT_TRUE(file->sent_as_bytes);
  EXPECT_EQ(file->bytes, "PK...");
  EXPECT_EQ(file->source_name, "/home/a/model.pt2");
  format.ClearBytes(w.mutable_model());
  format.ClearSourceName(w.mutable_model());
  EXPECT_EQ(w.model().aot_inductor().package_bytes(), "");
  EXPECT_EQ(w.model().aot_inductor().source_name(), "");

  v1::ModelSpec module;
  TorchScriptFormat().SetPath("/data/m.pt", &module);
  EXPECT_EQ(module.torchscript().path(), "/data/m.pt");
  file = FindModelFormat(module)->File(module);
  EXPECT_FALSE(file->sent_as_bytes);
  EXPECT_EQ(file->path, "/data/m.pt");
  TorchScriptFormat().ClearBytes(&module);  // a path stays a path
  EXPECT_EQ(module.torchscript().path(), "/data/m.pt");
  TorchScriptFormat().SetBytes("PK", "m.pt", &module);
  EXPECT_EQ(module.torchscript().module_bytes(), "PK");
  EXPECT_EQ(module.torchscript().source_name(), "m.pt");

  v1::ModelSpec builtin;
  builtin.set_builtin(v1::ModelSpec::linear);
  EXPECT_FALSE(BuiltinFormat().File(builtin).has_value());
}

}  // namespace
}  // namespace torchscan::spec
