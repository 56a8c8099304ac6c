#include "workloads/torchscript_build.h"

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/script.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "libtorch_build_info.h"
#include "workloads/graph_scan.h"
#include "workloads/tensor_conversion.h"
#include "workloads/torch_status.h"
#include "workloads/workload_file.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::TorchScriptSpec;
using torchscan::v1::WorkloadSpec;

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

// PyTorch 1.13 saves a module after torch.jit.optimize_for_inference (any convolution folded
// into MKLDNN constants) that neither it nor LibTorch can load back: torch.jit.load fails with
// "required keyword attribute 'value' is undefined". Said so, with the variant that works.
absl::Status ExplainOptimizedForInference(const absl::Status& loaded) {
  if (!absl::StrContains(loaded.message(), "required keyword attribute 'value' is undefined")) return loaded;
  return absl::Status(
      loaded.code(),
      absl::StrCat(loaded.message(),
                   "; this is how PyTorch " TORCHSCAN_LIBTORCH_VERSION
                   " fails on a module saved after torch.jit.optimize_for_inference (its folded constants do not "
                   "load back, in Python either): save the module before optimize_for_inference and let TorchScan "
                   "apply it (torchscan-client --candidate-optimize-for-inference; Python: "
                   "candidate_transform=\"optimize_for_inference\")"));
}

// The module's bytes: sent with the job, or read here from a path on this machine; loaded,
// and the record of the file it came from.
absl::StatusOr<std::pair<torch::jit::Module, FileRecord>> LoadModule(const TorchScriptSpec& ts) {
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
  torch::jit::Module module;
  absl::Status loaded = RunTorch(
      uploaded ? absl::StrCat("model.torchscript.module_bytes",
                              ts.source_name().empty() ? "" : absl::StrCat(" (", ts.source_name(), ")"),
                              " are not a TorchScript module LibTorch " TORCHSCAN_LIBTORCH_VERSION
                              " can load (send the bytes written by torch.jit.save or torch::jit::Module::save)")
               : absl::StrCat("model.torchscript.path: '", ts.path(),
                              "' is not a TorchScript module LibTorch " TORCHSCAN_LIBTORCH_VERSION
                              " can load (save one with torch.jit.save or torch::jit::Module::save)"),
      [&] {
        std::istringstream in(bytes);
        module = torch::jit::load(in);
      });
  if (!loaded.ok()) return ExplainOptimizedForInference(loaded);
  return std::make_pair(std::move(module), RecordFile(bytes, uploaded ? ts.source_name() : ts.path(), uploaded));
}

absl::Status CheckMethod(const torch::jit::Module& module, const std::string& method_name) {
  if (module.find_method(method_name)) return absl::OkStatus();
  std::vector<std::string> names;
  for (const auto& m : module.get_methods()) names.push_back(m.name());
  return absl::InvalidArgumentError(
      absl::StrCat("model.torchscript.method: the module has no method '", method_name,
                   "'; its methods: ", names.empty() ? "(none)" : absl::StrJoin(names, ", ")));
}

// "forward(x: Tensor, mask: Tensor)": the method's arguments as its schema names them (self
// left out), for an error about inputs that do not fit; "" when the schema cannot be read.
std::string Signature(const torch::jit::Module& module, const std::string& method_name) {
  std::string text;
  const absl::Status read = RunTorch("reading the method's schema", [&] {
    const c10::FunctionSchema& schema = module.get_method(method_name).function().getSchema();
    std::vector<std::string> args;
    for (const c10::Argument& a : schema.arguments())
      if (a.name() != "self") args.push_back(absl::StrCat(a.name(), ": ", a.type()->annotation_str()));
    text = absl::StrCat(method_name, "(", absl::StrJoin(args, ", "), ")");
  });
  return read.ok() ? text : "";
}

// spec.freeze (and optimize_for_inference, which freezes first), keeping `method_name`.
absl::Status FreezeIfAsked(const WorkloadSpec& spec, const std::string& method_name, torch::jit::Module& module) {
  if (!spec.freeze() && !spec.optimize_for_inference()) return absl::OkStatus();
  const std::vector<std::string> other_methods =
      method_name == "forward" ? std::vector<std::string>{} : std::vector<std::string>{method_name};
  return RunTorch(spec.optimize_for_inference() ? "optimize_for_inference failed" : "freeze failed", [&] {
    module = torch::jit::freeze(module, other_methods);
    if (spec.optimize_for_inference()) module = torch::jit::optimize_for_inference(module, other_methods);
  });
}

}  // namespace

absl::StatusOr<BuiltModel> BuildTorchScript(const TorchScriptSpec& ts, const WorkloadSpec& spec,
                                            const c10::Device& device, at::ScalarType dtype) {
  BuiltModel model;
  model.name = "torchscript";
  absl::StatusOr<std::pair<torch::jit::Module, FileRecord>> loaded = LoadModule(ts);
  if (!loaded.ok()) return loaded.status();
  torch::jit::Module module = std::move(loaded->first);
  model.revision = loaded->second.sha256;
  model.description["model_source"] = loaded->second.Description();
  const std::string method_name = ts.method().empty() ? "forward" : ts.method();
  if (absl::Status s = CheckMethod(module, method_name); !s.ok()) return s;
  model.signature = [module, method_name] { return Signature(module, method_name); };
  absl::Status converted = RunTorch("converting the TorchScript module's weights", [&] {
    // Saved in training mode (dropout active, batch norm updating its statistics): measured in
    // eval mode, as inference runs it, and the report says so (experiment: "training_mode").
    if (module.is_training()) model.description[kGivenModeKey] = "training";
    module.eval();
    ConvertInPlace(ScriptTensors(module), device, dtype, spec.channels_last());
  });
  if (!converted.ok()) return converted;
  if (absl::Status s = FreezeIfAsked(spec, method_name, module); !s.ok()) return s;
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

}  // namespace torchscan::workloads
