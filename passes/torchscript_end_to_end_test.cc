// A TorchScript module made in the test (torch::jit::Module::define), saved to bytes and run
// end to end: BuildWorkload from the bytes, ProfileWorkload, MeasurePeakMemory.
#include <sstream>

#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "passes/operator_profile.h"
#include "passes/peak_memory.h"
#include "workloads/workload.h"

namespace torchscan::passes {
namespace {

std::string TinyClassifierBytes() {
  torch::jit::Module module("TinyClassifier");
  module.register_parameter("weight", torch::randn({16, 8}), false);
  module.register_parameter("bias", torch::randn({16}), false);
  module.define(R"(
def forward(self, x):
    return torch.relu(torch.linear(x, self.weight, self.bias))
)");
  std::ostringstream out;
  module.save(out);
  return out.str();
}

torchscan::v1::WorkloadSpec Spec(const std::string& bytes) {
  torchscan::v1::WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_module_bytes(bytes);
  auto* input = spec.add_inputs();
  input->set_name("x");
  input->mutable_generated()->add_shape(4);
  input->mutable_generated()->add_shape(8);
  input->mutable_generated()->set_seed(3);
  return spec;
}

double Value(const std::vector<torchscan::v1::MetricResult>& metrics, const std::string& name) {
  for (const auto& m : metrics) {
    if (m.name() == name) return m.value();
  }
  ADD_FAILURE() << "no metric " << name;
  return -1;
}

TEST(TorchScriptEndToEnd, DefinedModuleBuildsProfilesAndMeasures) {
  const std::string bytes = TinyClassifierBytes();
  const auto workload = workloads::BuildWorkload(Spec(bytes));
  ASSERT_TRUE(workload.ok()) << workload.status();
  EXPECT_EQ(workload->work_units, 4);
  EXPECT_EQ(workload->work_unit, "samples");
  EXPECT_EQ(workload->description.at("model"), "torchscript");
  EXPECT_EQ(workload->description.at("method"), "forward");
  EXPECT_EQ(workload->input_metadata.fields().at("input.x.seed"), "3 (private generator)");

  // The workload computes what the module computes on the same input.
  std::istringstream in(bytes);
  torch::jit::Module reference = torch::jit::load(in);
  reference.eval();
  const torch::Tensor x = workload->resident_tensors.back();
  ASSERT_EQ(x.sizes(), (std::vector<int64_t>{4, 8}));
  const torch::Tensor expected = reference.forward({x}).toTensor();
  const torch::Tensor actual = workload->call().toTensor();
  EXPECT_TRUE(torch::allclose(actual, expected));

  // linear: 2 * 4 * 8 * 16 = 1,024 FLOPs; relu counts 0 by convention.
  const auto profile = ProfileWorkload(workload->call, 5);
  ASSERT_TRUE(profile.ok()) << profile.status();
  EXPECT_EQ(profile->flops_per_call().value(), 1024.0);
  EXPECT_TRUE(profile->flops_per_call().complete()) << profile->flops_per_call().DebugString();
  bool saw_linear = false;
  for (const auto& op : profile->operators()) {
    if (op.name() == "aten::linear") {
      saw_linear = true;
      EXPECT_EQ(op.calls(), 5);
      EXPECT_EQ(op.shapes(0).input_shapes(), "[4, 8] [16, 8] [16]");
    }
  }
  EXPECT_TRUE(saw_linear) << profile->DebugString();

  // Resident: weight 16x8 + bias 16 + x 4x8 float32 = (128 + 16 + 32) * 4 = 704 bytes;
  // the call allocates at least its 4x16 float32 output (256 bytes).
  const auto memory = MeasurePeakMemory(workload->call, *workload->device, workload->resident_tensors);
  EXPECT_EQ(Value(memory, "tensor_baseline_bytes"), 704);
  EXPECT_GE(Value(memory, "tensor_delta_bytes"), 256);
  EXPECT_EQ(Value(memory, "tensor_peak_bytes"), 704 + Value(memory, "tensor_delta_bytes"));
}

TEST(TorchScriptEndToEnd, PerSampleAndFrozenVariantsAgree) {
  const std::string bytes = TinyClassifierBytes();
  const auto batch = workloads::BuildWorkload(Spec(bytes));
  auto per_sample_spec = Spec(bytes);
  per_sample_spec.set_execution_mode(torchscan::v1::WorkloadSpec::per_sample);
  const auto per_sample = workloads::BuildWorkload(per_sample_spec);
  auto frozen_spec = Spec(bytes);
  frozen_spec.set_freeze(true);
  const auto frozen = workloads::BuildWorkload(frozen_spec);
  ASSERT_TRUE(batch.ok() && per_sample.ok() && frozen.ok());
  const torch::Tensor out = batch->call().toTensor();
  EXPECT_TRUE(torch::allclose(out, per_sample->call().toTensor(), 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(out, frozen->call().toTensor(), 1e-4, 1e-5));
  const auto per_sample_profile = ProfileWorkload(per_sample->call, 1);
  ASSERT_TRUE(per_sample_profile.ok());
  EXPECT_EQ(per_sample_profile->flops_per_call().value(), 1024.0);  // 4 x (2 * 8 * 16)
  // The frozen module's weights are graph constants: still counted as resident.
  const auto memory = MeasurePeakMemory(frozen->call, *frozen->device, frozen->resident_tensors);
  EXPECT_GE(Value(memory, "tensor_baseline_bytes"), 704);  // fails when the metric is missing
}

}  // namespace
}  // namespace torchscan::passes
