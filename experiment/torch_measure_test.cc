#include "experiment/torch_measure.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "workloads/thread_settings.h"

namespace torchscan::experiment {
namespace {

TorchLatencyOptions QuickOptions() {
  TorchLatencyOptions o;
  o.timing.min_run_time_s = 0.02;
  o.timing.min_blocks = 5;
  o.timing.warmup_time_s = 0;
  o.timing.work_units = 32;
  o.timing.work_unit = "samples";
  o.name = "batch";
  return o;
}

TEST(MeasureTorchLatency, RecordsAFullReportForALinearForward) {
  ASSERT_TRUE(workloads::ApplyThreadSettings(1, 0).ok());
  torch::manual_seed(0);
  torch::nn::Linear model(128, 128);
  model->eval();
  const torch::Tensor inputs = torch::randn({32, 128});
  TorchLatencyOptions o = QuickOptions();
  for (const v1::TensorInfo& t : DescribeTensors({inputs}, "inputs")) *o.input_metadata.add_tensors() = t;
  o.workload["model"] = "linear";
  absl::StatusOr<v1::BenchmarkReport> r = MeasureTorchLatency(
      [&] {
        torch::InferenceMode guard;
        model(inputs);
      },
      o);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->schema_version(), 1);
  EXPECT_EQ(r->name(), "batch");
  EXPECT_EQ(r->settings().device(), "cpu");
  EXPECT_EQ(r->settings().threads().intra_op(), 1);
  EXPECT_GE(r->settings().threads().inter_op(), 1);
  EXPECT_EQ(r->settings().timing().synchronization(), "none");
  EXPECT_GE(r->timing().blocks_size(), 5);
  EXPECT_GT(r->timing().summary().median_s(), 0);
  EXPECT_EQ(r->timing().throughput_unit(), "samples/s");
  EXPECT_FALSE(r->environment().libtorch_version().empty());
  EXPECT_FALSE(r->environment().blas_library().empty());
  EXPECT_EQ(r->input_metadata().tensors(0).name(), "inputs");
  EXPECT_EQ(r->input_metadata().tensors(0).dtype(), "Float");
  EXPECT_EQ(r->input_metadata().tensors(0).shape_size(), 2);
  EXPECT_EQ(r->workload().at("model"), "linear");
}

TEST(MeasureTorchLatency, UnusableDevicesAreNamed) {
  for (const std::string device : {"mps", "cuda:0", "tpu", "banana"}) {
    TorchLatencyOptions o = QuickOptions();
    o.device = device;
    absl::StatusOr<v1::BenchmarkReport> r = MeasureTorchLatency([] {}, o);
    if (device == "cuda:0" && torch::cuda::is_available()) {  // usable where a GPU is visible
      EXPECT_TRUE(r.ok()) << r.status();
      continue;
    }
    ASSERT_FALSE(r.ok()) << device;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("device: \"" + device + "\""), std::string::npos) << r.status();
  }
}

TEST(DescribeTensors, NamesEachTensor) {
  const std::vector<v1::TensorInfo> infos =
      DescribeTensors({torch::zeros({2, 3}), torch::zeros({4}, torch::kLong)}, "x");
  ASSERT_EQ(infos.size(), 2u);
  EXPECT_EQ(infos[0].name(), "x[0]");
  EXPECT_EQ(infos[1].dtype(), "Long");
  EXPECT_EQ(infos[1].device(), "cpu");
}

}  // namespace
}  // namespace torchscan::experiment
