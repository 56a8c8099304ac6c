#include "experiment/script_check.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include <torch/csrc/jit/runtime/jit_exception.h>
#include <torch/script.h>

#include "core/output_check.h"
#include "workloads/workload_file.h"

namespace torchscan::experiment {
namespace {

constexpr const char* kAssertionMarker = "AssertionError: ";

// The assertion's own message from a JITException's text (which ends "AssertionError: <msg>").
std::string AssertionMessage(const std::string& what) {
  const size_t at = what.rfind(kAssertionMarker);
  std::string message = at == std::string::npos ? what : what.substr(at + std::string(kAssertionMarker).size());
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
  return message.empty() ? "check module assertion failed" : message;
}

absl::Status NotAModule(const std::string& field, const std::string& what) {
  std::string reason = what.substr(0, std::min(what.find('\n'), size_t{300}));
  return absl::InvalidArgumentError(field + ": not a TorchScript module (save one with torch.jit.save): " + reason);
}

}  // namespace

struct ScriptCheck::Module {
  torch::jit::Module module;
  std::string method;
  std::string file;
};

ScriptCheck::ScriptCheck(std::unique_ptr<Module> module) : module_(std::move(module)) {}
ScriptCheck::~ScriptCheck() = default;

absl::StatusOr<std::unique_ptr<ScriptCheck>> ScriptCheck::Load(const v1::TorchScriptSpec& spec,
                                                               const std::string& field) {
  auto m = std::make_unique<Module>();
  m->method = spec.method().empty() ? "forward" : spec.method();
  const bool uploaded = spec.source_case() == v1::TorchScriptSpec::kModuleBytes;
  if (!uploaded && spec.source_case() != v1::TorchScriptSpec::kPath)
    return absl::InvalidArgumentError(field + ": set path or module_bytes");
  std::string read;  // the bytes of a path on this machine, read as this process's user
  if (!uploaded) {
    absl::StatusOr<std::string> contents = workloads::ReadWorkerFile(spec.path(), field + ".path");
    if (!contents.ok()) return contents.status();
    read = *std::move(contents);
  }
  const std::string& bytes = uploaded ? spec.module_bytes() : read;
  try {
    std::istringstream in(bytes);
    m->module = torch::jit::load(in);
  } catch (const c10::Error& e) {
    // what() carries a multi-line C++ backtrace; the job's error keeps one line, so the reason goes first.
    return NotAModule(field, e.what_without_backtrace());
  } catch (const std::exception& e) {
    return NotAModule(field, e.what());
  }
  const workloads::FileRecord file =
      workloads::RecordFile(bytes, uploaded ? spec.source_name() : spec.path(), uploaded);
  m->file = file.Description() + " " + file.sha256;
  if (!m->module.find_method(m->method))
    return absl::InvalidArgumentError(field + ".method: the module has no method \"" + m->method + "\"");
  m->module.eval();
  return std::unique_ptr<ScriptCheck>(new ScriptCheck(std::move(m)));
}

const std::string& ScriptCheck::file() const { return module_->file; }

std::optional<bool> ScriptCheck::operator()(const c10::IValue& baseline, const c10::IValue& candidate) const {
  c10::IValue result;
  try {
    result = module_->module.get_method(module_->method)({baseline, candidate});
  } catch (const torch::jit::JITException& e) {
    const std::string what = e.what();
    if (what.find(kAssertionMarker) != std::string::npos) throw AssertionError(AssertionMessage(what));
    throw;
  }
  if (result.isNone()) return std::nullopt;
  if (result.isBool()) return result.toBool();
  throw std::runtime_error("the check module returned " + result.tagKind() + "; return None, True or False");
}

}  // namespace torchscan::experiment
