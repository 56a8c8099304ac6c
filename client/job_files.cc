#include "client/job_files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "io/file_io.h"
#include "io/zip_names.h"
#include "spec/model_format.h"

namespace torchscan {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDaemonPathFix =
    "or, for a file on the daemon's machine, pass --daemon-path to send its path instead";

// The absolute path, and how it came from what was given (for messages about relative paths).
std::string Where(const std::string& given, const std::string& absolute, const std::string& base_dir) {
  if (fs::path(given).is_absolute()) return absl::StrCat("'", absolute, "'");
  std::error_code error;
  const std::string base = base_dir.empty() ? "the working directory " + fs::current_path(error).string() : base_dir;
  return absl::StrCat("'", absolute, "' (\"", given, "\" relative to ", base, ")");
}

// The bytes of the file the client uploads.
absl::StatusOr<std::string> ReadUpload(const std::string& given, const std::string& base_dir) {
  if (given.empty()) return absl::InvalidArgumentError("no file given; name a file");
  const std::string absolute = ResolveClientPath(given, base_dir);
  const std::string where = Where(given, absolute, base_dir);
  struct stat info;
  if (::stat(absolute.c_str(), &info) != 0)
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", where, ": ", std::strerror(errno),
                                                   "; give a file this client can read, ", kDaemonPathFix));
  if (!S_ISREG(info.st_mode))
    return absl::InvalidArgumentError(
        absl::StrCat(where, " is not a regular file (a folder, device or pipe); give a file"));
  if (info.st_size > kMaxReadFileBytes)
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is ", info.st_size, " bytes, more than the client uploads (", kMaxReadFileBytes,
        "); put it where the daemon's machine can read it and pass --daemon-path to send its path instead"));
  absl::StatusOr<std::string> bytes = ReadFile(absolute);
  if (!bytes.ok()) return absl::InvalidArgumentError(absl::StrCat(bytes.status().message(), "; ", kDaemonPathFix));
  return bytes;
}

// What PyTorch wrote into a file, from its zip entries.
enum class Saved {
  kModule,    // torch.jit.save: code/ entries
  kPackage,   // torch._inductor.aoti_compile_and_package: data/aotinductor/ entries
  kExported,  // torch.export.save: a .pt2 archive without compiled code
  kData,      // torch.save: a tensor, a state_dict, a pickled object
  kNotZip,    // torch.save's legacy format, or not PyTorch's at all
};

Saved SavedKind(const std::string& bytes) {
  absl::StatusOr<std::vector<std::string>> names = ZipEntryNames(bytes);
  if (!names.ok()) return Saved::kNotZip;
  bool archive = false;
  for (const std::string& name : *names) {
    if (absl::StartsWith(name, "code/") || absl::StrContains(name, "/code/")) return Saved::kModule;
    if (absl::StrContains(name, "/data/aotinductor/")) return Saved::kPackage;
    archive = archive || absl::EndsWith(name, "/archive_format") || name == "archive_format";
  }
  return archive ? Saved::kExported : Saved::kData;
}

constexpr const char* kHowToSave =
    "save the module with torch.jit.script(model).save(path) (or torch.jit.trace(model, inputs)), or compile it "
    "into a package with torch._inductor.aoti_compile_and_package(torch.export.export(model, inputs), "
    "package_path=\"model.pt2\")";

// The format of a model file, from its bytes; a file that is no model is refused here, before
// anything is sent.
absl::StatusOr<const spec::ModelFormat*> ModelFormatOf(const std::string& bytes, const std::string& where) {
  switch (SavedKind(bytes)) {
    case Saved::kModule: return &spec::TorchScriptFormat();
    case Saved::kPackage: return &spec::AotInductorFormat();
    case Saved::kExported:
      return absl::InvalidArgumentError(
          absl::StrCat(where,
                       " is an exported program saved with torch.export.save, not compiled code: compile it into an "
                       "AOTInductor package with torch._inductor.aoti_compile_and_package(torch.export.load(path), "
                       "package_path=\"model.pt2\")"));
    case Saved::kData:
      return absl::InvalidArgumentError(absl::StrCat(
          where, " holds data saved with torch.save (a tensor, a state_dict or a pickled nn.Module), not a model: ",
          kHowToSave));
    case Saved::kNotZip: break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      where,
      " is not a TorchScript module or an AOTInductor package (not the zip archive either writes): ", kHowToSave));
}

// A check module must be TorchScript (it runs on the daemon with both outputs).
absl::Status CheckModuleBytes(const std::string& bytes, const std::string& where) {
  absl::StatusOr<const spec::ModelFormat*> format = ModelFormatOf(bytes, where);
  if (!format.ok()) return format.status();
  if (*format == &spec::TorchScriptFormat()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      where,
      " is an AOTInductor package; a check module is a TorchScript module taking (baseline output, candidate "
      "output): save one with torch.jit.script(check).save(path)"));
}

// A tensor file that is a module is refused here; anything else is the worker's to read.
absl::Status CheckTensorBytes(const std::string& bytes, const std::string& where) {
  if (SavedKind(bytes) != Saved::kModule) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(where,
                   " is a TorchScript module, not a tensor: an input file holds one tensor saved with "
                   "torch.save(tensor, path); give the module with --torchscript, --baseline or --candidate"));
}

// Resolves or uploads one file into `set_path` / `set_bytes` (+ its source name).
absl::Status SetFile(const std::string& path, FileTransport transport, const std::string& base_dir,
                     const std::function<void(const std::string&)>& set_path,
                     const std::function<void(std::string, const std::string&)>& set_bytes,
                     const std::function<absl::Status(const std::string&, const std::string&)>& check_bytes) {
  if (transport == FileTransport::kDaemonPath) {
    if (path.empty()) return absl::InvalidArgumentError("no path given; name a file on the daemon's machine");
    set_path(ResolveClientPath(path, base_dir));
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> bytes = ReadUpload(path, base_dir);
  if (!bytes.ok()) return bytes.status();
  const std::string absolute = ResolveClientPath(path, base_dir);
  if (check_bytes)
    if (absl::Status s = check_bytes(*bytes, Where(path, absolute, base_dir)); !s.ok()) return s;
  set_bytes(*std::move(bytes), absolute);
  return absl::OkStatus();
}

}  // namespace

std::string ResolveClientPath(const std::string& path, const std::string& base_dir) {
  if (path.empty()) return path;
  const fs::path given(path);
  if (given.is_absolute()) return given.lexically_normal().string();
  std::error_code error;
  const fs::path base = base_dir.empty() ? fs::current_path(error) : fs::path(base_dir);
  return (base / given).lexically_normal().string();
}

absl::Status SetModelFile(const std::string& path, FileTransport transport, v1::ModelSpec* model,
                          const std::string& base_dir, const spec::ModelFormat* format) {
  // A path on the daemon's machine is not read here: its format is the one asked for, or a
  // package's by the .pt2 extension aoti_compile_and_package gives it.
  const spec::ModelFormat* by_name = format != nullptr              ? format
                                     : absl::EndsWith(path, ".pt2") ? &spec::AotInductorFormat()
                                                                    : &spec::TorchScriptFormat();
  return SetFile(
      path, transport, base_dir, [model, by_name](const std::string& p) { by_name->SetPath(p, model); },
      [model](std::string bytes, const std::string& name) {
        // Checked by the last argument before this runs: the bytes are a model.
        const spec::ModelFormat* found = *ModelFormatOf(bytes, name);
        found->SetBytes(std::move(bytes), name, model);
      },
      [format](const std::string& bytes, const std::string& where) -> absl::Status {
        absl::StatusOr<const spec::ModelFormat*> found = ModelFormatOf(bytes, where);
        if (!found.ok() || format == nullptr || *found == format) return found.status();
        return absl::InvalidArgumentError(absl::StrCat(where, " is ", (*found)->noun(), ", named as model.",
                                                       format->field(), ": name it as model.", (*found)->field()));
      });
}

absl::Status SetModuleFile(const std::string& path, FileTransport transport, v1::TorchScriptSpec* module,
                           const std::string& base_dir) {
  return SetFile(
      path, transport, base_dir, [module](const std::string& p) { module->set_path(p); },
      [module](std::string bytes, const std::string& name) {
        module->set_module_bytes(std::move(bytes));
        module->set_source_name(name);
      },
      CheckModuleBytes);
}

absl::Status SetTensorFile(const std::string& path, FileTransport transport, v1::InputSpec* input,
                           const std::string& base_dir) {
  return SetFile(
      path, transport, base_dir, [input](const std::string& p) { input->set_tensor_file(p); },
      [input](std::string bytes, const std::string& name) {
        input->set_tensor_bytes(std::move(bytes));
        input->set_source_name(name);
      },
      CheckTensorBytes);
}

absl::Status ResolveJobFiles(const std::string& job_file, FileTransport transport, v1::JobSpec* spec) {
  const std::string folder = fs::path(ResolveClientPath(job_file)).parent_path().string();
  const auto fail = [&job_file](const std::string& field, const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat(job_file, ": ", field, ": ", s.message()));
  };
  const auto module = [&](const std::string& field, v1::TorchScriptSpec* ts) -> absl::Status {
    if (ts->source_case() != v1::TorchScriptSpec::kPath) return absl::OkStatus();
    const std::string path = ts->path();
    if (absl::Status s = SetModuleFile(path, transport, ts, folder); !s.ok()) return fail(field + ".path", s);
    return absl::OkStatus();
  };
  const auto workload = [&](const std::string& field, v1::WorkloadSpec* w) -> absl::Status {
    // A model file named by path: the format the job file names.
    const spec::ModelFormat* format = spec::FindModelFormat(w->model());
    if (format != nullptr)
      if (const std::optional<spec::ModelFileView> file = format->File(w->model()); file && !file->sent_as_bytes) {
        const std::string path(file->path);
        if (absl::Status s = SetModelFile(path, transport, w->mutable_model(), folder, format); !s.ok())
          return fail(absl::StrCat(field, ".", file->field, ".path"), s);
      }
    for (int i = 0; i < w->inputs_size(); ++i) {
      v1::InputSpec* input = w->mutable_inputs(i);
      if (input->source_case() != v1::InputSpec::kTensorFile) continue;
      const std::string path = input->tensor_file();
      if (absl::Status s = SetTensorFile(path, transport, input, folder); !s.ok())
        return fail(absl::StrCat(field, ".inputs[", i, "].tensor_file"), s);
    }
    return absl::OkStatus();
  };
  if (spec->has_measure() && spec->measure().has_workload())
    return workload("spec.measure.workload", spec->mutable_measure()->mutable_workload());
  if (spec->has_calibrate() && spec->calibrate().has_workload())
    return workload("spec.calibrate.workload", spec->mutable_calibrate()->mutable_workload());
  if (!spec->has_compare()) return absl::OkStatus();
  v1::CompareJob* c = spec->mutable_compare();
  if (c->has_baseline())
    if (absl::Status s = workload("spec.compare.baseline", c->mutable_baseline()); !s.ok()) return s;
  if (c->has_candidate())
    if (absl::Status s = workload("spec.compare.candidate", c->mutable_candidate()); !s.ok()) return s;
  if (c->check().has_torchscript())
    return module("spec.compare.check.torchscript", c->mutable_check()->mutable_torchscript());
  return absl::OkStatus();
}

}  // namespace torchscan
