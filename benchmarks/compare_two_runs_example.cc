// The guide's "Compare two runs" example in C++:
//
//   compare_two_runs_example [OUTPUT_DIR]     (default: the current folder)
//
// One intra-op thread set before the model is built, seed 0, Linear(128, 128) in eval /
// inference mode on 32x128 inputs; baseline = one forward per row, stacked; candidate = one
// batch forward; the output check (rtol 1e-4, atol 1e-5) runs outside timing; writes
// comparison.json.
#include <cstdio>
#include <string>

#include <torch/torch.h>

#include "experiment/torchscan.h"
#include "proto/spec_limits.h"

int main(int argc, char** argv) {
  const std::string output = argc > 1 ? argv[1] : ".";
  if (absl::Status s = torchscan::workloads::ApplyThreadSettings(1, 0); !s.ok()) {  // before constructing the model
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 2;
  }
  torch::manual_seed(0);
  torch::nn::Linear model(128, 128);
  model->eval();
  const torch::Tensor inputs = torch::randn({32, 128});

  auto baseline = [&] {
    torch::InferenceMode guard;
    std::vector<torch::Tensor> rows;
    for (int64_t i = 0; i < inputs.size(0); ++i) rows.push_back(model(inputs[i]));
    return torch::stack(rows);
  };
  auto candidate = [&] {
    torch::InferenceMode guard;
    return model(inputs);
  };

  torchscan::experiment::TorchLatencyOptions settings;
  settings.device = "cpu";
  settings.timing.work_units = 32;
  settings.timing.work_unit = "samples";
  for (const auto& t : torchscan::experiment::DescribeTensors({inputs}, "inputs"))
    *settings.input_metadata.add_tensors() = t;
  (*settings.input_metadata.mutable_fields())["seed"] = "0";

  settings.name = "baseline";
  absl::StatusOr<torchscan::v1::BenchmarkReport> before =
      torchscan::experiment::MeasureTorchLatency([&] { baseline(); }, settings);
  settings.name = "candidate";
  absl::StatusOr<torchscan::v1::BenchmarkReport> after =
      torchscan::experiment::MeasureTorchLatency([&] { candidate(); }, settings);
  if (!before.ok() || !after.ok()) {
    std::fprintf(stderr, "%s\n", (before.ok() ? after.status() : before.status()).ToString().c_str());
    return 3;
  }
  // Separate from timing: the operator profile of each.
  auto before_profile =
      torchscan::passes::ProfileWorkload([&] { return c10::IValue(baseline()); }, torchscan::kDefaultProfileCalls);
  auto after_profile =
      torchscan::passes::ProfileWorkload([&] { return c10::IValue(candidate()); }, torchscan::kDefaultProfileCalls);
  if (!before_profile.ok() || !after_profile.ok()) {
    std::fprintf(stderr, "%s\n",
                 (before_profile.ok() ? after_profile.status() : before_profile.status()).ToString().c_str());
    return 3;
  }
  *before->mutable_profile() = *std::move(before_profile);
  *after->mutable_profile() = *std::move(after_profile);

  const torchscan::v1::Comparison comparison = torchscan::CompareBenchmarks(*before, *after, [&] {
    torchscan::experiment::AssertClose(baseline(), candidate(), {.rtol = 1e-4, .atol = 1e-5});
    return std::optional<bool>();
  });
  const std::string path = output + "/comparison.json";
  if (absl::Status s = torchscan::SaveJson(comparison, path); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 3;
  }
  std::printf("%s: %s, check %s\n", path.c_str(),
              torchscan::v1::Comparison::LatencyChange_Name(comparison.latency_change()).c_str(),
              torchscan::v1::OutputCheck::Status_Name(comparison.output_check().status()).c_str());
  return 0;
}
