// A TorchScript check module: the daemon-side form of the guide's `check` callable, since
// outputs stay on the daemon. Its method (default "forward") is called with
// (baseline output, candidate output):
//   returns None or True   -> passes
//   returns False          -> fails ("check module returned False")
//   a TorchScript assert   -> fails with the assertion's message (AssertionError)
//   anything else          -> an error that propagates (the job fails), including a return
//                             value that is neither None nor a bool
// LibTorch stays in the .cc.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "proto/workload.pb.h"

namespace c10 {
class IValue;
}

namespace torchscan::experiment {

class ScriptCheck {
 public:
  // Loads the module from spec.module_bytes (sent with the job) or spec.path (read by this
  // process, workloads/workload_file.h) and finds the method.
  // InvalidArgument naming `field` (e.g. "spec.compare.check.torchscript") when the bytes or
  // file are not a TorchScript module, the path is not a regular file, no source is set, or
  // the method is missing; NotFound for a path this process cannot read (naming its user).
  static absl::StatusOr<std::unique_ptr<ScriptCheck>> Load(const v1::TorchScriptSpec& spec, const std::string& field);
  ~ScriptCheck();

  // The module's file as a report names it: "<name> (uploaded, N bytes) sha256:<hex>" or
  // "<path> (read on the daemon's machine, N bytes) sha256:<hex>".
  const std::string& file() const;

  // Calls the method; see the table above. Throws AssertionError (core/output_check.h) on a
  // TorchScript assert, std::runtime_error for a wrong return type, and what LibTorch throws.
  std::optional<bool> operator()(const c10::IValue& baseline, const c10::IValue& candidate) const;

 private:
  struct Module;
  explicit ScriptCheck(std::unique_ptr<Module> module);
  std::unique_ptr<Module> module_;
};

}  // namespace torchscan::experiment
