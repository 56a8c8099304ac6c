#include "workloads/workload.h"

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <utility>

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/cuda.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/version.h"
#include "workloads/builtin_factories.h"
#include "spec/builtin_models.h"
#include "workloads/device.h"
#include "workloads/graph_scan.h"
#include "workloads/inputs.h"
#include "workloads/torch_status.h"
#include "workloads/workload_file.h"
#include "libtorch_build_info.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::InputSpec;
using torchscan::v1::ModelSpec;
using torchscan::v1::TorchScriptSpec;
using torchscan::v1::WorkloadSpec;

using Forward = std::function<c10::IValue(const std::vector<at::Tensor>&)>;

// The model as a call sees it, after conversion to the device, precision and layout.
struct Model {
  Forward forward;
  std::vector<at::Tensor> weights;            // resident tensors the forward reads
  std::map<std::string, std::string> description;
  std::string name;                           // a built-in's (spec/builtin_models.h) or "torchscript"
  std::string revision;                       // the description's model_revision
  bool needs_batch_dim = false;               // per_sample must keep dim 0 (a built-in's keeps_batch_dim)
  // TorchScript: scans the method's graph given one forward's input shapes (graph_scan.h).
  std::function<GraphCompute(const std::vector<std::vector<int64_t>>&, int64_t forwards_per_call)> scan_graph;
};

std::string DTypeName(at::ScalarType type) {
  switch (type) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kLong: return "int64";
    case at::kInt: return "int32";
    case at::kShort: return "int16";
    case at::kChar: return "int8";
    case at::kByte: return "uint8";
    case at::kBool: return "bool";
    default: return c10::toString(type);
  }
}

std::string TensorText(const at::Tensor& t) {
  if (!t.defined()) return "undefined tensor";
  return absl::StrCat("[", absl::StrJoin(t.sizes(), ", "), "] ", DTypeName(t.scalar_type()));
}

std::string ValueText(const c10::IValue& v) {
  if (v.isTensor()) return absl::StrCat("tensor ", TensorText(v.toTensor()));
  if (v.isTuple()) {
    std::vector<std::string> parts;
    for (const auto& e : v.toTuple()->elements()) parts.push_back(ValueText(e));
    return absl::StrCat("tuple(", absl::StrJoin(parts, ", "), ")");
  }
  return v.tagKind();
}

at::ScalarType Precision(WorkloadSpec::Precision p) {
  switch (p) {
    case WorkloadSpec::bfloat16: return at::kBFloat16;
    case WorkloadSpec::float16: return at::kHalf;
    default: return at::kFloat;
  }
}

// Converts weights in place (set_data keeps the modules' references valid): floating tensors
// to `dtype`, every tensor to `device`, 4-D floating tensors to channels-last when asked.
void ConvertInPlace(std::vector<at::Tensor> tensors, const torch::Device& device, at::ScalarType dtype,
                    bool channels_last) {
  torch::NoGradGuard no_grad;
  for (at::Tensor& t : tensors) {
    if (!t.defined()) continue;
    at::Tensor converted = t.is_floating_point() ? t.to(device, dtype) : t.to(device);
    if (channels_last && converted.dim() == 4 && converted.is_floating_point()) {
      converted = converted.contiguous(at::MemoryFormat::ChannelsLast);
    }
    t.set_data(converted);
  }
}

at::Tensor Convert(const at::Tensor& t, const torch::Device& device, at::ScalarType dtype, bool channels_last) {
  at::Tensor converted = t.is_floating_point() ? t.to(device, dtype) : t.to(device);
  if (channels_last && converted.dim() == 4 && converted.is_floating_point()) {
    converted = converted.contiguous(at::MemoryFormat::ChannelsLast);
  }
  return converted;
}

// ---------------------------------------------------------------- built-in models

// Built under torch::manual_seed, before the inputs (they may draw from the same generator):
// the entry's factory constructs the model, its weights are converted in place.
absl::StatusOr<Model> BuildBuiltin(const spec::BuiltinModel& entry, const torch::Device& device, at::ScalarType dtype,
                                   bool channels_last) {
  const BuiltinFactory factory = FindBuiltinFactory(entry.id);
  if (factory == nullptr) {
    return absl::InternalError(absl::StrCat("model.builtin ", entry.name,
                                            " has no factory registered (workloads/builtin_factories.cc)"));
  }
  BuiltinModule module;
  absl::Status built = RunTorch(absl::StrCat("building model.builtin ", entry.name), [&] {
    module = factory();
    ConvertInPlace(module.tensors, device, dtype, channels_last);
  });
  if (!built.ok()) return built;
  Model model;
  model.name = entry.name;
  model.revision = absl::StrCat("torchscan ", kTorchScanVersion, " built-in ", model.name,
                                " (LibTorch C++ frontend, weights initialised locally from the seed)");
  model.forward = std::move(module.forward);
  model.weights = std::move(module.tensors);
  model.needs_batch_dim = entry.keeps_batch_dim;
  model.description = entry.description;
  return model;
}

// ---------------------------------------------------------------- TorchScript

void CollectConstants(const torch::jit::Block* block, std::vector<at::Tensor>* out) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind() == c10::prim::Constant && node->outputs().size() == 1 &&
        node->output()->type()->cast<c10::TensorType>()) {
      if (auto value = torch::jit::toIValue(node->output()); value && value->isTensor()) {
        out->push_back(value->toTensor());
      }
    }
    for (const torch::jit::Block* sub : node->blocks()) CollectConstants(sub, out);
  }
}

std::vector<at::Tensor> ScriptTensors(const torch::jit::Module& module) {
  std::vector<at::Tensor> tensors;
  for (const at::Tensor& p : module.parameters(/*recurse=*/true)) tensors.push_back(p);
  for (const at::Tensor& b : module.buffers(/*recurse=*/true)) tensors.push_back(b);
  return tensors;
}

absl::StatusOr<Model> BuildTorchScript(const TorchScriptSpec& ts, const WorkloadSpec& spec,
                                       const torch::Device& device, at::ScalarType dtype) {
  Model model;
  model.name = "torchscript";
  torch::jit::Module module;
  // The module's bytes: sent with the job, or read here from a path on this machine.
  const bool uploaded = ts.source_case() == TorchScriptSpec::kModuleBytes;
  if (!uploaded && ts.source_case() != TorchScriptSpec::kPath)
    return absl::InvalidArgumentError("model.torchscript: no source; set path or module_bytes");
  if (uploaded && ts.module_bytes().empty())
    return absl::InvalidArgumentError("model.torchscript.module_bytes is empty; send the bytes of a saved module");
  std::string read;
  if (!uploaded) {
    absl::StatusOr<std::string> contents = ReadWorkerFile(ts.path(), "model.torchscript.path");
    if (!contents.ok()) return contents.status();
    read = *std::move(contents);
  }
  const std::string& bytes = uploaded ? ts.module_bytes() : read;
  absl::Status loaded = RunTorch(
      uploaded ? "model.torchscript.module_bytes are not a TorchScript module (send the bytes written by "
                 "torch.jit.save or torch::jit::Module::save)"
               : absl::StrCat("model.torchscript.path: '", ts.path(), "' is not a TorchScript module (save one with "
                              "torch.jit.save or torch::jit::Module::save)"),
      [&] {
        std::istringstream in(bytes);
        module = torch::jit::load(in);
      });
  if (!loaded.ok()) return loaded;
  const FileRecord file = RecordFile(bytes, uploaded ? ts.source_name() : ts.path(), uploaded);
  model.revision = file.sha256;
  model.description["model_source"] = file.Description();
  const std::string method_name = ts.method().empty() ? "forward" : ts.method();
  if (!module.find_method(method_name)) {
    std::vector<std::string> names;
    for (const auto& m : module.get_methods()) names.push_back(m.name());
    return absl::InvalidArgumentError(absl::StrCat("model.torchscript.method: the module has no method '", method_name,
                                                   "'; its methods: ",
                                                   names.empty() ? "(none)" : absl::StrJoin(names, ", ")));
  }
  absl::Status converted = RunTorch("converting the TorchScript module's weights", [&] {
    module.eval();
    ConvertInPlace(ScriptTensors(module), device, dtype, spec.channels_last());
  });
  if (!converted.ok()) return converted;
  if (spec.freeze() || spec.optimize_for_inference()) {
    const std::vector<std::string> other_methods =
        method_name == "forward" ? std::vector<std::string>{} : std::vector<std::string>{method_name};
    absl::Status frozen = RunTorch(
        spec.optimize_for_inference() ? "optimize_for_inference failed" : "freeze failed", [&] {
          module = torch::jit::freeze(module, other_methods);
          if (spec.optimize_for_inference()) module = torch::jit::optimize_for_inference(module, other_methods);
        });
    if (!frozen.ok()) return frozen;
  }
  torch::jit::Method method = module.get_method(method_name);
  model.weights = ScriptTensors(module);
  CollectConstants(method.graph()->block(), &model.weights);
  model.forward = [method](const std::vector<at::Tensor>& in) mutable {
    return method(std::vector<c10::IValue>(in.begin(), in.end()));
  };
  model.description["method"] = method_name;
  model.scan_graph = [module, method_name](const std::vector<std::vector<int64_t>>& shapes, int64_t forwards) {
    return ScanGraphCompute(module, method_name, shapes, forwards);
  };
  return model;
}

// ---------------------------------------------------------------- the call

c10::IValue Combine(const std::vector<c10::IValue>& outputs, bool concatenate) {
  const c10::IValue& first = outputs.front();
  if (first.isTensor()) {
    std::vector<at::Tensor> tensors;
    tensors.reserve(outputs.size());
    for (const auto& o : outputs) {
      TORCH_CHECK(o.isTensor(), "per_sample: sample outputs differ in type (", first.tagKind(), " vs ", o.tagKind(), ")");
      tensors.push_back(o.toTensor());
    }
    return concatenate ? at::cat(tensors, 0) : at::stack(tensors, 0);
  }
  if (first.isTuple()) {
    const size_t n = first.toTuple()->elements().size();
    std::vector<c10::IValue> combined;
    for (size_t j = 0; j < n; ++j) {
      std::vector<c10::IValue> column;
      for (const auto& o : outputs) {
        TORCH_CHECK(o.isTuple() && o.toTuple()->elements().size() == n, "per_sample: sample outputs differ in structure");
        column.push_back(o.toTuple()->elements()[j]);
      }
      combined.push_back(Combine(column, concatenate));
    }
    return c10::ivalue::Tuple::create(std::move(combined));
  }
  TORCH_CHECK(false, "per_sample: cannot combine outputs of type ", first.tagKind(),
              "; per_sample supports tensor outputs and tuples of them (use execution_mode batch)");
  return {};
}

std::function<c10::IValue()> MakeCall(Forward forward, std::vector<at::Tensor> inputs, bool per_sample,
                                      bool keep_batch_dim) {
  if (!per_sample) {
    return [forward = std::move(forward), inputs = std::move(inputs)] {
      c10::InferenceMode inference;
      return forward(inputs);
    };
  }
  return [forward = std::move(forward), inputs = std::move(inputs), keep_batch_dim] {
    c10::InferenceMode inference;
    const int64_t samples = inputs.front().size(0);
    std::vector<c10::IValue> outputs;
    outputs.reserve(static_cast<size_t>(samples));
    std::vector<at::Tensor> sample(inputs.size());
    for (int64_t i = 0; i < samples; ++i) {
      for (size_t k = 0; k < inputs.size(); ++k) {
        sample[k] = keep_batch_dim ? inputs[k].narrow(0, i, 1) : inputs[k].select(0, i);
      }
      outputs.push_back(forward(sample));
    }
    return Combine(outputs, keep_batch_dim);
  };
}

absl::Status ValidateSpec(const WorkloadSpec& spec) {
  const ModelSpec& model = spec.model();
  if (model.source_case() == ModelSpec::SOURCE_NOT_SET) {
    return absl::InvalidArgumentError(
        absl::StrCat("model: not set; set model.builtin (", spec::BuiltinNameList(", ", ", "), ") or model.torchscript"));
  }
  if (model.source_case() == ModelSpec::kBuiltin) {
    if (spec::FindBuiltin(model.builtin()) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("model.builtin: choose ", spec::BuiltinNameList(", ", " or ")));
    }
    if (spec.freeze() || spec.optimize_for_inference()) {
      return absl::InvalidArgumentError(
          "freeze / optimize_for_inference apply to TorchScript models only; unset them for model.builtin");
    }
    if (spec.work_units() != 0 || !spec.work_unit().empty()) {
      return absl::InvalidArgumentError(
          "work_units / work_unit apply to TorchScript models only (built-ins define theirs); unset them");
    }
  } else if (spec.inputs().empty()) {
    return absl::InvalidArgumentError("inputs: a TorchScript model needs its inputs; add one InputSpec per argument");
  }
  if (spec.work_units() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("work_units is ", spec.work_units(), "; it must be >= 0 (0: default)"));
  }
  if (!WorkloadSpec::Precision_IsValid(spec.dtype()) || !WorkloadSpec::ExecutionMode_IsValid(spec.execution_mode())) {
    return absl::InvalidArgumentError("dtype / execution_mode: unknown enum value");
  }
  return absl::OkStatus();
}

// A built-in takes fixed arguments: the spec's, then those it left out that the entry fills
// in (bert's attention mask and token types), constants shaped like input 0.
absl::Status CompleteBuiltinInputs(const spec::BuiltinModel& entry, std::vector<PreparedInput>* inputs,
                                   int64_t* remaining_bytes) {
  const size_t required = static_cast<size_t>(entry.required_inputs);
  const size_t max_inputs = required + entry.optional_inputs.size();
  if (inputs->empty() || inputs->size() < required || inputs->size() > max_inputs) {
    return absl::InvalidArgumentError(absl::StrCat("inputs: model.builtin ", entry.name, " takes ", entry.inputs_text,
                                                   "; got ", inputs->size(), " (leave inputs empty for the defaults)"));
  }
  const at::Tensor first = inputs->front().tensor;  // a handle: push_back below may reallocate
  while (inputs->size() < max_inputs) {
    const spec::ConstantInput& constant = entry.optional_inputs[inputs->size() - required];
    const int64_t bytes = static_cast<int64_t>(first.numel()) * 8;
    if (bytes > *remaining_bytes) {
      std::vector<std::string> names;
      for (const spec::ConstantInput& optional : entry.optional_inputs) names.push_back(optional.name);
      return absl::ResourceExhaustedError(absl::StrCat(
          "inputs: ", entry.name, "'s default ", absl::StrJoin(names, " / "),
          " exceed WorkloadLimits.max_input_bytes; use fewer ", entry.work_unit, " or raise the limit"));
    }
    *remaining_bytes -= bytes;
    PreparedInput input;
    input.name = constant.name;
    absl::Status made = RunTorch(absl::StrCat(entry.name, " default inputs"),
                                 [&] { input.tensor = torch::full(first.sizes(), constant.value, torch::kInt64); });
    if (!made.ok()) return made;
    input.fields["source"] = constant.source;
    inputs->push_back(std::move(input));
  }
  return absl::OkStatus();
}

std::string InputsText(const std::vector<PreparedInput>& inputs, const std::vector<at::Tensor>& tensors,
                       const std::string& device) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < inputs.size(); ++i) parts.push_back(absl::StrCat(inputs[i].name, " ", TensorText(tensors[i])));
  return absl::StrCat(absl::StrJoin(parts, ", "), " on ", device);
}

// The input shapes one forward sees: per_sample runs each sample, dim 0 selected (or narrowed
// to 1 with keep_batch_dim).
std::vector<std::vector<int64_t>> ForwardInputShapes(const std::vector<at::Tensor>& inputs, bool per_sample,
                                                     bool keep_batch_dim) {
  std::vector<std::vector<int64_t>> shapes;
  for (const at::Tensor& t : inputs) {
    std::vector<int64_t> shape = t.sizes().vec();
    if (per_sample && keep_batch_dim) shape[0] = 1;
    if (per_sample && !keep_batch_dim) shape.erase(shape.begin());
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

// One forward as it was called, for errors: "forward(x: Tensor[32, 65] float32) on cpu", with
// the shapes one forward sees (`forward_shapes`: per sample, the sample's).
std::string CallText(const std::string& method, const std::vector<PreparedInput>& inputs,
                     const std::vector<std::vector<int64_t>>& forward_shapes, const std::vector<at::Tensor>& tensors,
                     const std::string& device) {
  std::vector<std::string> arguments;
  for (size_t i = 0; i < inputs.size(); ++i) {
    arguments.push_back(absl::StrCat(inputs[i].name, ": Tensor[", absl::StrJoin(forward_shapes[i], ", "), "] ",
                                     DTypeName(tensors[i].scalar_type())));
  }
  return absl::StrCat(method, "(", absl::StrJoin(arguments, ", "), ") on ", device);
}

// ---------------------------------------------------------------- the phases

// Builds one workload from a valid spec, phase by phase: Build lists the phases; each reads
// what the earlier ones left in the members and returns the first error it meets.
class WorkloadBuilder {
 public:
  WorkloadBuilder(const WorkloadSpec& spec, const WorkloadOptions& options, ResolvedDevice resolved)
      : spec_(spec),
        options_(options),
        resolved_(std::move(resolved)),
        device_(resolved_.name),
        dtype_(Precision(spec.dtype())),
        builtin_(spec.model().source_case() == ModelSpec::kBuiltin ? spec::FindBuiltin(spec.model().builtin()) : nullptr),
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
    absl::StatusOr<Model> model = builtin_ != nullptr
                                      ? BuildBuiltin(*builtin_, device_, dtype_, spec_.channels_last())
                                      : BuildTorchScript(spec_.model().torchscript(), spec_, device_, dtype_);
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
    return RunTorch("moving the inputs to " + resolved_.name, [&] {
      for (const PreparedInput& p : prepared_) inputs_.push_back(Convert(p.tensor, device_, dtype_, spec_.channels_last()));
    });
  }

  // channels_last needs a 4-D floating input; per_sample a common, non-empty dim 0.
  absl::Status CheckInputsSuitExecution() const {
    if (spec_.channels_last() && std::none_of(inputs_.begin(), inputs_.end(), [](const at::Tensor& t) {
          return t.dim() == 4 && t.is_floating_point();
        })) {
      return absl::InvalidArgumentError(absl::StrCat("channels_last: no 4-D floating-point input to convert (inputs: ",
                                                     InputsText(prepared_, inputs_, resolved_.name),
                                                     "); it applies to image models such as resnet18"));
    }
    if (!per_sample_) return absl::OkStatus();
    for (const at::Tensor& input : inputs_) {
      if (input.dim() == 0 || input.size(0) == 0 || input.size(0) != inputs_[0].size(0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "execution_mode per_sample: every input needs the same non-empty dim 0 (inputs: ",
            InputsText(prepared_, inputs_, resolved_.name), "); use execution_mode batch or matching shapes"));
      }
    }
    return absl::OkStatus();
  }

  // The call and the wait for the device's queued work.
  void PrepareCall() {
    workload_.device = resolved_.name;
    workload_.call = MakeCall(model_.forward, inputs_, per_sample_, keep_batch_dim_);
    if (resolved_.cuda) {
#if TORCHSCAN_LIBTORCH_CUDA
      const int64_t index = resolved_.index;
      workload_.synchronize = [index] { torch::cuda::synchronize(index); };
#endif
    }
    if (!workload_.synchronize) workload_.synchronize = [] {};
  }

  // The fit check (options.trial_call): one call, whose failure names the call as it was made.
  absl::Status CheckInputsFitModel() {
    if (!options_.trial_call) return absl::OkStatus();
    const std::string precision_hint =
        dtype_ == at::kFloat ? "" : absl::StrCat("; precision ", DTypeName(dtype_), " may lack kernels on ", resolved_.name);
    const auto method = model_.description.find("method");
    const std::string call = CallText(method == model_.description.end() ? "forward" : method->second, prepared_,
                                      ForwardInputShapes(inputs_, per_sample_, keep_batch_dim_), inputs_, resolved_.name);
    absl::Status fits = RunTorch(absl::StrCat("the inputs do not fit the model: ", call, precision_hint, " failed"),
                                 [&] { output_ = workload_.call(); });
    if (fits.ok()) return fits;
    return absl::Status(fits.code(), absl::StrCat(fits.message(), "; give one input per argument of the method, "
                                                  "shaped and typed as it expects (--input / --input-file)"));
  }

  // A built-in's work units come from its table entry; TorchScript's from the spec, else dim 0.
  void CountWorkUnits() {
    if (builtin_ != nullptr) {
      workload_.work_units = spec::BuiltinWorkUnits(*builtin_, inputs_[0].sizes().vec());
      workload_.work_unit = builtin_->work_unit;
      return;
    }
    workload_.work_units = spec_.work_units() > 0 ? spec_.work_units() : inputs_[0].dim() == 0 ? 1.0 : inputs_[0].size(0);
    workload_.work_unit = spec_.work_unit().empty() ? "samples" : spec_.work_unit();
  }

  // Input metadata: what a comparison must match (the inputs). The model and the candidate
  // changes (revision, method, execution mode, precision, layout) go to the description,
  // where a comparison lists them as changed settings instead of refusing to compare.
  absl::Status RecordInputMetadata() {
    auto& fields = *workload_.input_metadata.mutable_fields();
    for (const auto& [key, value] : spec_.input_metadata()) {
      if (key == "seed" || absl::StartsWith(key, "input.")) {
        return absl::InvalidArgumentError(absl::StrCat("input_metadata: key \"", key,
                                                       "\" is TorchScan's own (seed, input.*); choose another name"));
      }
      fields[key] = value;
    }
    fields["seed"] = absl::StrCat(spec_.seed());
    for (size_t i = 0; i < prepared_.size(); ++i) {
      const PreparedInput& input = prepared_[i];
      torchscan::v1::TensorInfo* info = workload_.input_metadata.add_tensors();
      info->set_name(input.name);
      for (int64_t d : inputs_[i].sizes()) info->add_shape(d);
      // The source data's dtype: the precision the workload converts it to is a candidate
      // change (description "dtype"), not different inputs.
      info->set_dtype(DTypeName(input.tensor.scalar_type()));
      info->set_device(resolved_.name);
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
      description["per_sample"] = keep_batch_dim_
          ? "each call runs input.narrow(0, i, 1) for every i and concatenates the outputs on dim 0"
          : "each call runs input[i] for every i and stacks the outputs";
    }
    description["dtype"] = DTypeName(dtype_);
    description["device"] = resolved_.name;
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

  void CollectResidentTensors() {
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
  const ResolvedDevice resolved_;
  const torch::Device device_;
  const at::ScalarType dtype_;
  const spec::BuiltinModel* const builtin_;  // nullptr: a TorchScript model
  const bool per_sample_;
  Model model_;
  bool keep_batch_dim_ = false;         // per_sample narrows dim 0 instead of selecting it
  std::vector<PreparedInput> prepared_;  // on the CPU, as made
  std::vector<at::Tensor> inputs_;       // converted and on the device
  Workload workload_;
  c10::IValue output_;                   // the trial call's
};

}  // namespace

absl::StatusOr<Workload> BuildWorkload(const WorkloadSpec& spec, const WorkloadOptions& options) {
  if (absl::Status valid = ValidateSpec(spec); !valid.ok()) return valid;
  absl::StatusOr<ResolvedDevice> resolved = ResolveDevice(spec.device());
  if (!resolved.ok()) return resolved.status();
  return WorkloadBuilder(spec, options, *std::move(resolved)).Build();
}

}  // namespace torchscan::workloads
