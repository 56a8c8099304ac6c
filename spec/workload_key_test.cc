#include "spec/workload_key.h"

#include <gtest/gtest.h>

namespace torchscan::spec {
namespace {

v1::WorkloadSpec Uploaded(const std::string& bytes, const std::string& source_name) {
  v1::WorkloadSpec w;
  w.mutable_model()->mutable_torchscript()->set_module_bytes(bytes);
  w.mutable_model()->mutable_torchscript()->set_source_name(source_name);
  v1::InputSpec* input = w.add_inputs();
  input->mutable_generated()->add_shape(8);
  input->mutable_generated()->add_shape(64);
  return w;
}

TEST(WorkloadKey, ByteIdenticalModulesFromDifferentPathsShareAKey) {
  const std::string key = WorkloadKey(Uploaded("module bytes", "/home/ann/a.pt"));
  EXPECT_EQ(key.rfind("fnv1a64:", 0), 0u) << key;
  EXPECT_EQ(key.size(), 8u + 16u);
  v1::WorkloadSpec copy = Uploaded("module bytes", "/home/ann/a_copy.pt");
  (*copy.mutable_input_metadata())["note"] = "a label";
  copy.set_work_unit("images");
  EXPECT_EQ(WorkloadKey(copy), key) << "display names and labels do not change the work";
}

TEST(WorkloadKey, AnythingThatChangesTheWorkChangesTheKey) {
  const v1::WorkloadSpec base = Uploaded("module bytes", "a.pt");
  const std::string key = WorkloadKey(base);
  v1::WorkloadSpec other_bytes = Uploaded("module bytez", "a.pt");
  EXPECT_NE(WorkloadKey(other_bytes), key);
  v1::WorkloadSpec other_shape = base;
  other_shape.mutable_inputs(0)->mutable_generated()->set_shape(0, 16);
  EXPECT_NE(WorkloadKey(other_shape), key);
  v1::WorkloadSpec other_dtype = base;
  other_dtype.set_dtype(v1::WorkloadSpec::bfloat16);
  EXPECT_NE(WorkloadKey(other_dtype), key);
  v1::WorkloadSpec builtin;
  builtin.mutable_model()->set_builtin(v1::ModelSpec::linear);
  v1::WorkloadSpec per_sample = builtin;
  per_sample.set_execution_mode(v1::WorkloadSpec::per_sample);
  EXPECT_NE(WorkloadKey(builtin), WorkloadKey(per_sample));
  EXPECT_NE(WorkloadKey(builtin), key);
}

}  // namespace
}  // namespace torchscan::spec
