#include "core/script_check.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <torch/csrc/jit/runtime/jit_exception.h>
#include <torch/script.h>

#include "core/output_check.h"

namespace torchscan {
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
};

ScriptCheck::ScriptCheck(std::unique_ptr<Module> module) : module_(std::move(module)) {}
ScriptCheck::~ScriptCheck() = default;

absl::StatusOr<std::unique_ptr<ScriptCheck>> ScriptCheck::Load(const v1::TorchScriptSpec& spec,
                                                               const std::string& field) {
  auto m = std::make_unique<Module>();
  m->method = spec.method().empty() ? "forward" : spec.method();
  try {
    switch (spec.source_case()) {
      case v1::TorchScriptSpec::kPath: {
        std::ifstream probe(spec.path(), std::ios::binary);
        if (!probe) return absl::NotFoundError(field + ".path: cannot read " + spec.path());
        m->module = torch::jit::load(spec.path());
        break;
      }
      case v1::TorchScriptSpec::kModuleBytes: {
        std::istringstream bytes(spec.module_bytes());
        m->module = torch::jit::load(bytes);
        break;
      }
      default:
        return absl::InvalidArgumentError(field + ": set path or module_bytes");
    }
  } catch (const c10::Error& e) {
    // what() carries a multi-line C++ backtrace; the job's error keeps one line, so the reason goes first.
    return NotAModule(field, e.what_without_backtrace());
  } catch (const std::exception& e) {
    return NotAModule(field, e.what());
  }
  if (!m->module.find_method(m->method))
    return absl::InvalidArgumentError(field + ".method: the module has no method \"" + m->method + "\"");
  m->module.eval();
  return std::unique_ptr<ScriptCheck>(new ScriptCheck(std::move(m)));
}

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

}  // namespace torchscan
