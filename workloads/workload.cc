#include "workloads/workload.h"

#include <algorithm>
#include <utility>

#include <torch/torch.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/device_registry.h"
#include "spec/builtin_models.h"
#include "spec/job_spec.h"
#include "workloads/builtin_build.h"
#include "workloads/call_text.h"
#include "workloads/forward_call.h"
#include "workloads/inputs.h"
#include "workloads/model_builders.h"
#include "workloads/tensor_conversion.h"
#include "workloads/torch_status.h"
#include "workloads/torch_text.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::InputSpec;
using torchscan::v1::ModelSpec;
using torchscan::v1::WorkloadSpec;

// ---------------------------------------------------------------- the phases

// Builds one workload from a valid spec, phase by phase: Build lists the phases; each reads
// what the earlier ones left in the members and returns the first error it meets.
class WorkloadBuilder {
 public:
  WorkloadBuilder(const WorkloadSpec& spec, const WorkloadOptions& options, std::shared_ptr<devices::Device> device)
      : spec_(spec),
        options_(options),
        opened_(std::move(device)),
        device_(opened_->local_text()),
        dtype_(PrecisionDtype(spec.dtype())),
        builtin_(spec.model().source_case() == ModelSpec::kBuiltin ? spec::FindBuiltin(spec.model().builtin())
                                                                   : nullptr),
        per_sample_(spec.execution_mode() == WorkloadSpec::per_sample) {}

  absl::StatusOr<Workload> Build() {
    // Seed, then the model, then the inputs: the order of `torch.manual_seed(0); model = ...;
    // inputs = torch.randn(...)`, so that the global generator draws the same numbers.
    if (absl::Status s = SeedGenerator(); !s.ok()) return s;
    if (absl::Status s = BuildModel(); !s.ok()) return s;
    if (absl::Status s = MakeInputs(); !s.ok()) return s;
    if (absl::Status s = MoveInputsToDevice(); !s.ok()) return s;
    if (absl::Status s = CheckInputsSuitExecution(); !s.ok()) return s;
    PrepareCall();
    if (absl::Status s = CheckInputsFitModel(); !s.ok()) return s;
    CountWorkUnits();
    if (absl::Status s = RecordInputMetadata(); !s.ok()) return s;
    Describe();
    CollectResidentTensors();
    ScanGraph();
    return std::move(workload_);
  }

 private:
  absl::Status SeedGenerator() {
    return RunTorch("seed", [&] { torch::manual_seed(static_cast<uint64_t>(spec_.seed())); });
  }

  // The model, converted to the device, precision and layout.
  absl::Status BuildModel() {
    absl::StatusOr<BuiltModel> model = BuildModelOf(spec_, device_, dtype_);
    if (!model.ok()) return model.status();
    model_ = *std::move(model);
    keep_batch_dim_ = spec_.keep_batch_dim() || model_.needs_batch_dim;
    return absl::OkStatus();
  }

  // The spec's inputs (a built-in's defaults when it gives none), generated or loaded on the
  // CPU within options.max_input_bytes, then what a built-in fills in.
  absl::Status MakeInputs() {
    std::vector<InputSpec> input_specs(spec_.inputs().begin(), spec_.inputs().end());
    if (builtin_ != nullptr && input_specs.empty()) input_specs = builtin_->default_inputs;
    int64_t remaining_bytes = options_.max_input_bytes;
    for (size_t i = 0; i < input_specs.size(); ++i) {
      absl::StatusOr<PreparedInput> input = MakeInput(input_specs[i], static_cast<int>(i), &remaining_bytes);
      if (!input.ok()) return input.status();
      prepared_.push_back(*std::move(input));
    }
    if (builtin_ == nullptr) return absl::OkStatus();
    return CompleteBuiltinInputs(*builtin_, &prepared_, &remaining_bytes);
  }

  absl::Status MoveInputsToDevice() {
    return RunTorch("moving the inputs to " + opened_->text(), [&] {
      for (const PreparedInput& p : prepared_)
        inputs_.push_back(ConvertTensor(p.tensor, device_, dtype_, spec_.channels_last()));
    });
  }

  // channels_last needs a 4-D floating input; per_sample a common, non-empty dim 0.
  absl::Status CheckInputsSuitExecution() const {
    if (spec_.channels_last() && std::none_of(inputs_.begin(), inputs_.end(), [](const at::Tensor& t) {
          return t.dim() == 4 && t.is_floating_point();
        })) {
      return absl::InvalidArgumentError(absl::StrCat("channels_last: no 4-D floating-point input to convert (inputs: ",
                                                     InputsText(Summaries(InputShapes()), opened_->text()),
                                                     "); it applies to image models such as resnet18"));
    }
    if (!per_sample_) return absl::OkStatus();
    for (const at::Tensor& input : inputs_) {
      if (input.dim() == 0 || input.size(0) == 0 || input.size(0) != inputs_[0].size(0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "execution_mode per_sample: every input needs the same non-empty dim 0 (inputs: ",
            InputsText(Summaries(InputShapes()), opened_->text()), "); use execution_mode batch or matching shapes"));
      }
    }
    return absl::OkStatus();
  }

  // The call, and the device it runs on (which waits for its queued work).
  void PrepareCall() {
    workload_.device = opened_;
    workload_.call = MakeCall(model_.forward, inputs_, per_sample_, keep_batch_dim_);
  }

  // The fit check (options.trial_call): one call, whose failure names the call as it was made.
  absl::Status CheckInputsFitModel() {
    if (!options_.trial_call) return absl::OkStatus();
    const std::string precision_hint = dtype_ == at::kFloat ? ""
                                                            : absl::StrCat("; precision ", DTypeName(dtype_),
                                                                           " may lack kernels on ", opened_->text());
    const auto method = model_.description.find("method");
    const std::string call =
        CallText(method == model_.description.end() ? "forward" : method->second,
                 Summaries(ForwardInputShapes(inputs_, per_sample_, keep_batch_dim_)), opened_->text());
    absl::Status fits =
        RunTorch(absl::StrCat("the inputs do not fit the model: ", call, precision_hint, " failed"), [&] {
          if (model_.checked_forward && options_.check_inputs)
            MakeCall(model_.checked_forward, inputs_, per_sample_, keep_batch_dim_)();
          output_ = workload_.call();
        });
    if (fits.ok()) return fits;
    if (const std::string ranges = GeneratedIntegerRanges();
        !ranges.empty() && absl::StrContains(fits.message(), "index out of range"))
      return absl::Status(fits.code(),
                          absl::StrCat(fits.message(), "; ", ranges,
                                       ": an embedding needs ids below its vocabulary size, so give the range the "
                                       "model takes, e.g. --input NAME=SHAPE:int64:0..VOCAB (high is exclusive)"));
    // A per_sample output it cannot stack says its own fix; the inputs are not at fault.
    if (absl::StrContains(fits.message(), kPerSampleCannotCombine)) return fits;
    const std::string signature = model_.signature ? model_.signature() : "";
    return absl::Status(
        fits.code(),
        absl::StrCat(fits.message(), "; ",
                     signature.empty() ? "the method takes" : "the method is " + signature + ": it takes",
                     " one input per argument, in that order, shaped and typed as it expects (WorkloadSpec.inputs)"));
  }

  // "input ids is generated in 0..30522 (inputs[0].generated.integers)" for each generated
  // integer input, joined; "" when there is none.
  std::string GeneratedIntegerRanges() const {
    std::vector<std::string> ranges;
    for (int i = 0; i < spec_.inputs_size(); ++i) {
      const InputSpec& input = spec_.inputs(i);
      if (!input.has_generated() || !input.generated().has_integers()) continue;
      const torchscan::v1::IntegerRange& r = input.generated().integers();
      ranges.push_back(absl::StrCat("input ", input.name().empty() ? absl::StrCat("input", i) : input.name(),
                                    " is generated in ", r.low(), "..", r.high(), " (inputs[", i,
                                    "].generated.integers)"));
    }
    return absl::StrJoin(ranges, "; ");
  }

  // A built-in's work units come from its table entry; TorchScript's from the spec, else dim 0.
  void CountWorkUnits() {
    if (builtin_ != nullptr) {
      workload_.work_units = spec::BuiltinWorkUnits(*builtin_, inputs_[0].sizes().vec());
      workload_.work_unit = builtin_->work_unit;
      return;
    }
    workload_.work_units = spec_.work_units() > 0  ? spec_.work_units()
                           : inputs_[0].dim() == 0 ? 1.0
                                                   : inputs_[0].size(0);
    workload_.work_unit = spec_.work_unit().empty() ? "samples" : spec_.work_unit();
  }

  // Input metadata: what a comparison must match (the inputs). The model and the candidate
  // changes (revision, method, execution mode, precision, layout) go to the description,
  // where a comparison lists them as changed settings instead of refusing to compare.
  absl::Status RecordInputMetadata() {
    auto& fields = *workload_.input_metadata.mutable_fields();
    for (const auto& [key, value] : spec_.input_metadata()) fields[key] = value;
    fields["seed"] = absl::StrCat(spec_.seed());
    for (size_t i = 0; i < prepared_.size(); ++i) {
      const PreparedInput& input = prepared_[i];
      torchscan::v1::TensorInfo* info = workload_.input_metadata.add_tensors();
      info->set_name(input.name);
      for (int64_t d : inputs_[i].sizes()) info->add_shape(d);
      // The source data's dtype: the precision the workload converts it to is a candidate
      // change (description "dtype"), not different inputs.
      info->set_dtype(DTypeName(input.tensor.scalar_type()));
      info->set_device(opened_->text());
      for (const auto& [key, value] : input.fields) fields[absl::StrCat("input.", input.name, ".", key)] = value;
      if (input.file) {
        workload_.description[absl::StrCat("input.", input.name, ".file")] = input.file->Description();
        workload_.description[absl::StrCat("input.", input.name, ".sha256")] = input.file->sha256;
      }
    }
    return absl::OkStatus();
  }

  // The description: what ran.
  void Describe() {
    std::map<std::string, std::string>& description = workload_.description;
    description.insert(model_.description.begin(), model_.description.end());
    description["model"] = model_.name;
    description["model_revision"] = model_.revision;
    description["execution_mode"] = WorkloadSpec::ExecutionMode_Name(spec_.execution_mode());
    if (per_sample_) {
      description["per_sample"] =
          keep_batch_dim_ ? "each call runs input.narrow(0, i, 1) for every i and concatenates the outputs on dim 0"
                          : "each call runs input[i] for every i and stacks the outputs";
    }
    description["dtype"] = DTypeName(dtype_);
    description["device"] = opened_->text();
    description["channels_last"] = spec_.channels_last() ? "true" : "false";
    description["seed"] = absl::StrCat(spec_.seed());
    description["mode"] = "eval, c10::InferenceMode";
    if (builtin_ == nullptr) {
      description["freeze"] = spec_.freeze() || spec_.optimize_for_inference() ? "true" : "false";
      description["optimize_for_inference"] = spec_.optimize_for_inference() ? "true" : "false";
    }
    description["work_unit"] = workload_.work_unit;
    description["work_units"] = absl::StrCat(workload_.work_units);
    description["output"] = options_.trial_call ? ValueText(output_) : "not described (built without a trial call)";
  }

  // The inputs as made, named, with `shapes` (the inputs' own, or what one forward sees) and
  // the dtype each has on the device.
  std::vector<TensorSummary> Summaries(const std::vector<std::vector<int64_t>>& shapes) const {
    std::vector<TensorSummary> summaries;
    for (size_t i = 0; i < prepared_.size(); ++i)
      summaries.push_back(Summarize(prepared_[i].name, shapes[i], inputs_[i]));
    return summaries;
  }

  // The inputs' own shapes, on the device.
  std::vector<std::vector<int64_t>> InputShapes() const {
    return ForwardInputShapes(inputs_, /*per_sample=*/false, /*keep_batch_dim=*/false);
  }

  void CollectResidentTensors() {
    workload_.opaque_compute = model_.opaque_compute;
    workload_.resident_tensors = model_.weights;
    workload_.resident_tensors.insert(workload_.resident_tensors.end(), inputs_.begin(), inputs_.end());
  }

  // TorchScript: the compute nodes of the method's graph for the shapes one forward sees.
  void ScanGraph() {
    if (!model_.scan_graph) return;
    workload_.graph_compute = model_.scan_graph(ForwardInputShapes(inputs_, per_sample_, keep_batch_dim_),
                                                per_sample_ ? inputs_.front().size(0) : 1);
  }

  const WorkloadSpec& spec_;
  const WorkloadOptions& options_;
  const std::shared_ptr<devices::Device> opened_;
  const torch::Device device_;  // opened_, as LibTorch names it
  const at::ScalarType dtype_;
  const spec::BuiltinModel* const builtin_;  // nullptr: a TorchScript model
  const bool per_sample_;
  BuiltModel model_;
  bool keep_batch_dim_ = false;          // per_sample narrows dim 0 instead of selecting it
  std::vector<PreparedInput> prepared_;  // on the CPU, as made
  std::vector<at::Tensor> inputs_;       // converted and on the device
  Workload workload_;
  c10::IValue output_;  // the trial call's
};

}  // namespace

absl::StatusOr<Workload> BuildWorkload(const WorkloadSpec& spec, const WorkloadOptions& options) {
  if (absl::Status valid = spec::ValidateWorkloadFields("workload", spec); !valid.ok()) return valid;
  absl::StatusOr<std::unique_ptr<devices::Device>> device = devices::OpenDevice(spec.device());
  if (!device.ok()) return device.status();
  return WorkloadBuilder(spec, options, *std::move(device)).Build();
}

}  // namespace torchscan::workloads
