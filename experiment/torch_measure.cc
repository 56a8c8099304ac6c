#include "experiment/torch_measure.h"

#include <torch/torch.h>

#include "absl/strings/str_format.h"
#include "core/compare.h"
#include "core/environment.h"
#include "devices/device_registry.h"
#include "experiment/torch_environment.h"

namespace torchscan::experiment {
namespace {

// The one device parser and registry (devices::OpenDevice), which also loads CUDA support
// before LibTorch's first CUDA query; its refusal keeps this API's "device: \"...\"" prefix.
absl::StatusOr<std::shared_ptr<devices::Device>> Open(const std::string& device) {
  absl::StatusOr<std::unique_ptr<devices::Device>> opened = devices::OpenDevice(device);
  if (!opened.ok())
    return absl::InvalidArgumentError(absl::StrFormat("device: \"%s\": %s", device, opened.status().message()));
  return std::shared_ptr<devices::Device>(*std::move(opened));
}

}  // namespace

std::vector<v1::TensorInfo> DescribeTensors(const std::vector<at::Tensor>& tensors, const std::string& name) {
  std::vector<v1::TensorInfo> out;
  for (size_t i = 0; i < tensors.size(); ++i) {
    v1::TensorInfo info;
    info.set_name(tensors.size() == 1 ? name : absl::StrFormat("%s[%d]", name, i));
    for (int64_t s : tensors[i].sizes()) info.add_shape(s);
    info.set_dtype(std::string(c10::toString(tensors[i].scalar_type())));
    info.set_device(tensors[i].device().str());
    out.push_back(std::move(info));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<TorchTimingSession>> TorchTimingSession::Start(const std::function<void()>& call,
                                                                              const TorchLatencyOptions& options) {
  absl::StatusOr<std::shared_ptr<devices::Device>> device = Open(options.device);
  if (!device.ok()) return device.status();
  LatencyOptions timing = options.timing;
  LatencyHooks hooks;
  hooks.on_block = options.on_block;
  hooks.timer = (*device)->NewBlockTimer(SteadyClock());
  timing.synchronization = hooks.timer->Describe();
  if (absl::Status s = ValidateLatencyOptions(timing); !s.ok()) return s;
  return std::unique_ptr<TorchTimingSession>(
      new TorchTimingSession(call, options, timing, std::move(hooks), *std::move(device)));
}

TorchTimingSession::TorchTimingSession(const std::function<void()>& call, TorchLatencyOptions options,
                                       LatencyOptions timing, LatencyHooks hooks,
                                       std::shared_ptr<devices::Device> device)
    : options_(std::move(options)),
      device_(std::move(device)),
      timing_(timing),
      runner_(call, std::move(timing), SteadyClock(), std::move(hooks)) {}

double TorchTimingSession::Prepare() {
  if (!sized_) {
    state_before_ = device_->State();
    runner_.WarmUp();
    runner_.SizeBlock();
    sized_ = true;
  }
  return runner_.sized_block_s();
}

std::pair<int64_t, int64_t> TorchTimingSession::TimeRound(double min_time_s, int min_blocks, double max_time_s) {
  Prepare();
  const int64_t first = runner_.blocks_done();
  return {first, runner_.RunRound(min_time_s, min_blocks, max_time_s)};
}

v1::BenchmarkReport TorchTimingSession::Finish() const {
  v1::BenchmarkReport report;
  *report.mutable_settings()->mutable_timing() = ToTimingSettings(timing_, *SteadyClock());
  *report.mutable_timing() = runner_.Finish(report.mutable_warnings());
  if (const std::optional<devices::DeviceState> after = device_->State(); state_before_ && after)
    for (v1::Warning& w : devices::DeviceNoiseWarnings(*state_before_, *after, device_->text()))
      *report.add_warnings() = std::move(w);
  report.set_work_units(timing_.work_units);
  report.set_work_unit(timing_.work_unit);
  report.set_schema_version(kSchemaVersion);
  report.set_name(options_.name);
  report.set_created_at(NowRfc3339());
  v1::Settings* settings = report.mutable_settings();
  settings->set_device(device_->text());
  settings->mutable_threads()->set_intra_op(torch::get_num_threads());
  settings->mutable_threads()->set_inter_op(at::get_num_interop_threads());
  for (const char* excluded : {"model and input construction", "host-device transfers", "output check",
                               "diagnostic passes (profile, memory, RSS)"})
    settings->add_excluded_from_timing(excluded);
  *report.mutable_environment() = CaptureEnvironment();
  AddTorchEnvironment(report.mutable_environment(), *device_);
  *report.mutable_input_metadata() = options_.input_metadata;
  report.mutable_workload()->insert(options_.workload.begin(), options_.workload.end());
  return report;
}

absl::StatusOr<v1::BenchmarkReport> MeasureTorchLatency(const std::function<void()>& call,
                                                        const TorchLatencyOptions& options) {
  absl::StatusOr<std::unique_ptr<TorchTimingSession>> session = TorchTimingSession::Start(call, options);
  if (!session.ok()) return session.status();
  const LatencyOptions& t = options.timing;
  (*session)->TimeRound(t.min_run_time_s, t.min_blocks, t.max_run_time_s);
  return (*session)->Finish();
}

}  // namespace torchscan::experiment
