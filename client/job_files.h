// The files a job names (TorchScript modules, check modules, tensor files) and how they reach
// the daemon's worker. No gRPC, no LibTorch.
//
// Files travel with the job: by default the client reads each file and sends its bytes
// (TorchScriptSpec.module_bytes, InputSpec.tensor_bytes) named by source_name, the file's
// absolute path here. A relative path, a folder the daemon's user cannot enter and a daemon
// on another machine all work the same. With --daemon-path (FileTransport::kDaemonPath) the
// client sends the absolute path instead (TorchScriptSpec.path, InputSpec.tensor_file), for
// files on storage the daemon's machine shares; the daemon's worker then opens it there as
// its own user, and the client does not look at it. Relative paths are resolved against the
// working directory (flags) or the job file's folder (job files), in both modes.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "proto/service.pb.h"
#include "spec/model_format.h"

namespace torchscan {

enum class FileTransport {
  kUpload,      // default: the file's bytes go with the job
  kDaemonPath,  // --daemon-path: its absolute path goes, for the daemon's machine to read
};

// `path` made absolute against `base_dir` (the working directory when empty) and lexically
// normal ("a/../b.pt" -> "<base>/b.pt"). An empty path stays empty.
std::string ResolveClientPath(const std::string& path, const std::string& base_dir = "");

// The source of a module the client is given (--torchscript, --baseline, --candidate,
// --check-module): module_bytes + source_name, or path, after resolving `path` against
// `base_dir`. Uploads only: InvalidArgument "cannot read '<absolute>' (\"<given>\" relative to
// <base>): <reason>; ..." when it is missing or unreadable, "... is not a regular file" for a
// folder or device, "... is N bytes, more than the client uploads" past kMaxReadFileBytes
// (io/file_io.h), each with the fix; and, read here without LibTorch from its zip entries, a
// file that is no TorchScript module ("... holds data saved with torch.save (a tensor, a
// state_dict ...), not a TorchScript module: save the module with ...", or "... is not a
// TorchScript module"), so that it is refused before anything is sent. The messages do not
// name a flag: callers prefix it.
absl::Status SetModuleFile(const std::string& path, FileTransport transport, v1::TorchScriptSpec* module,
                           const std::string& base_dir = "");

// The same for a model file (--torchscript, --baseline, --candidate, a job file's model), of
// either format: an upload's format is read from its zip entries (a TorchScript module, or an
// AOTInductor package: data/aotinductor/ entries) and `model` set to it; a file of neither is
// refused with how to make one (an exported program saved with torch.export.save is named as
// such). A path kept for the daemon (kDaemonPath) is not read: its format is `format`, or by
// default a package for a name ending in .pt2 and a TorchScript module otherwise. With
// `format` given, an upload of the other format is refused naming both.
absl::Status SetModelFile(const std::string& path, FileTransport transport, v1::ModelSpec* model,
                          const std::string& base_dir = "", const spec::ModelFormat* format = nullptr);

// The same for a tensor file (--input-file): tensor_bytes + source_name, or tensor_file; a
// TorchScript module given as one is refused here ("... is a TorchScript module, not a
// tensor"); what else it holds, the worker reads and names.
absl::Status SetTensorFile(const std::string& path, FileTransport transport, v1::InputSpec* input,
                           const std::string& base_dir = "");

// A job file's files as `transport` wants them: every TorchScriptSpec.path and
// InputSpec.tensor_file of `spec`, relative ones taken from the folder of `job_file`, read and
// replaced by their bytes (kUpload) or made absolute (kDaemonPath). Bytes already in the file
// (module_bytes, tensor_bytes) stay as they are. InvalidArgument "<job_file>: <field>: <what
// SetModuleFile says>", the field named as the daemon names it
// ("spec.compare.baseline.inputs[0].tensor_file").
absl::Status ResolveJobFiles(const std::string& job_file, FileTransport transport, v1::JobSpec* spec);

}  // namespace torchscan
