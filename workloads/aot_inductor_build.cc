#include "workloads/aot_inductor_build.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ATen/core/Dict.h>
#include <ATen/core/List.h>
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "io/zip_names.h"
#include "libtorch_build_info.h"
#include "workloads/libtorch_soname.h"
#include "workloads/private_file.h"
#include "workloads/torch_status.h"
#include "workloads/tree_spec.h"
#include "workloads/unpacked_folders.h"
#include "workloads/workload_file.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::AotInductorSpec;
using torchscan::v1::WorkloadSpec;

constexpr const char* kField = "model.aot_inductor";

// Runs `run`; when it throws, rethrows with what the package wrote to stderr meanwhile (the
// generated code reports a failed check there, "input_handles[0]: unmatched dim value at 0,
// expected: 8, but got: 16", and LibTorch's exception says only that the call failed).
void RunCapturingStderr(const std::function<void()>& run) {
  std::fflush(stderr);
  std::FILE* captured = std::tmpfile();
  const int saved = captured == nullptr ? -1 : ::dup(STDERR_FILENO);
  if (saved < 0) {
    if (captured != nullptr) std::fclose(captured);
    run();
    return;
  }
  ::dup2(::fileno(captured), STDERR_FILENO);
  std::string failure;
  try {
    run();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  if (failure.empty()) {
    std::fclose(captured);
    return;
  }
  std::string said;
  std::rewind(captured);
  char line[512];
  while (said.size() < 2000 && std::fgets(line, sizeof(line), captured) != nullptr) {
    std::string text = line;
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (!text.empty()) absl::StrAppend(&said, said.empty() ? "" : "; ", text);
  }
  std::fclose(captured);
  throw std::runtime_error(said.empty() ? failure : absl::StrCat("the package said: ", said));
}

// The flat outputs put back as `spec` says, from `*next` on.
c10::IValue Unflatten(const TreeSpec& spec, const std::vector<at::Tensor>& flat, size_t* next) {
  switch (spec.kind) {
    case TreeSpec::Kind::kLeaf: return flat.at((*next)++);
    case TreeSpec::Kind::kDict: {
      c10::impl::GenericDict dict(c10::StringType::get(), c10::AnyType::get());
      for (size_t i = 0; i < spec.children.size(); ++i)
        dict.insert(spec.keys[i], Unflatten(spec.children[i], flat, next));
      return dict;
    }
    case TreeSpec::Kind::kList: {
      c10::impl::GenericList list(c10::AnyType::get());
      for (const TreeSpec& child : spec.children) list.push_back(Unflatten(child, flat, next));
      return list;
    }
    case TreeSpec::Kind::kTuple: {
      std::vector<c10::IValue> items;
      for (const TreeSpec& child : spec.children) items.push_back(Unflatten(child, flat, next));
      return c10::ivalue::Tuple::create(std::move(items));
    }
  }
  return c10::IValue();
}

// The package's bytes (the job's own, or read here into `*read`) and the record of where they
// came from; an upload is not copied (a package is tens of MB, built again each build pair).
absl::StatusOr<std::pair<absl::string_view, FileRecord>> ReadPackage(const AotInductorSpec& aoti, std::string* read) {
  if (aoti.source_case() == AotInductorSpec::kPackageBytes)
    return std::make_pair(absl::string_view(aoti.package_bytes()),
                          RecordFile(aoti.package_bytes(), aoti.source_name(), true));
  absl::StatusOr<std::string> contents = ReadWorkerFile(aoti.path(), absl::StrCat(kField, ".path"));
  if (!contents.ok()) return contents.status();
  *read = *std::move(contents);
  return std::make_pair(absl::string_view(*read), RecordFile(*read, aoti.path(), false));
}

std::string Where(const AotInductorSpec& aoti) {
  const std::string& name = aoti.source_case() == AotInductorSpec::kPath ? aoti.path() : aoti.source_name();
  return name.empty() ? absl::StrCat(kField, ".package_bytes") : absl::StrCat(kField, " '", name, "'");
}

// The package's compiled library as unpacked ("<archive>/data/aotinductor/<model>/<hash>.so",
// named by its content); "" when it has none.
std::string LibraryEntry(absl::string_view package) {
  absl::StatusOr<std::vector<std::string>> names = ZipEntryNames(std::string_view(package.data(), package.size()));
  if (!names.ok()) return "";
  for (const std::string& name : *names)
    if (absl::StrContains(name, "/data/aotinductor/") && absl::EndsWith(name, ".so")) return name;
  return "";
}

using Loader = torch::inductor::AOTIModelPackageLoader;
using LoadPackage = std::function<std::shared_ptr<Loader>(const std::string& path)>;

// The device the package was compiled for (its metadata's AOTI_DEVICE_KEY), read before it is
// loaded so that a package for another device is refused by name rather than by the loader's
// failure to find that device's runtime; an error unless it is `device`'s type.
absl::StatusOr<std::string> PackageDevice(const AotInductorSpec& aoti, const std::string& path,
                                          const std::string& model_name, const c10::Device& device) {
  std::unordered_map<std::string, std::string> metadata;
  absl::Status read =
      RunTorch(absl::StrCat(Where(aoti),
                            " is not an AOTInductor package LibTorch " TORCHSCAN_LIBTORCH_VERSION
                            " can load (make one with torch._inductor.aoti_compile_and_package; model name '",
                            model_name, "')"),
               [&] { metadata = Loader::load_metadata_from_package(path, model_name); });
  if (!read.ok()) return read;
  const auto key = metadata.find("AOTI_DEVICE_KEY");
  const std::string package_device = key == metadata.end() ? "cpu" : key->second;
  if (package_device != c10::DeviceTypeName(device.type(), /*lower_case=*/true))
    return absl::InvalidArgumentError(absl::StrCat(Where(aoti), ": the package was compiled for ", package_device,
                                                   " and this job runs on ", device.str(), "; set the job's device to ",
                                                   package_device, ", or compile the model for ", device.str()));
  return package_device;
}

// The structure of the outputs, from the call spec; nullopt (flat outputs) with `*why` when
// the package has none TorchScan can read.
std::optional<TreeSpec> OutputSpec(Loader& loader, std::string* why) {
  std::vector<std::string> call_spec;
  if (!RunTorch("reading the package's call spec", [&] { call_spec = loader.get_call_spec(); }).ok() ||
      call_spec.size() != 2) {
    *why = "flat (no call spec)";
    return std::nullopt;
  }
  absl::StatusOr<TreeSpec> parsed = ParseTreeSpec(call_spec[1]);
  if (!parsed.ok()) {
    *why = absl::StrCat("flat (", parsed.status().message(), ")");
    return std::nullopt;
  }
  *why = parsed->Text();
  return *std::move(parsed);
}

// One call of `loader`, its flat outputs put back as `outputs` says (a tuple, or the tensor,
// when they cannot be).
Forward StructuredForward(std::shared_ptr<Loader> loader, std::optional<TreeSpec> outputs) {
  return [loader, outputs](const std::vector<at::Tensor>& in) -> c10::IValue {
    std::vector<at::Tensor> flat = loader->run(in);
    if (outputs && static_cast<int>(flat.size()) == outputs->LeafCount()) {
      size_t next = 0;
      return Unflatten(*outputs, flat, &next);
    }
    if (flat.size() == 1) return flat[0];
    return c10::ivalue::Tuple::create(std::vector<c10::IValue>(flat.begin(), flat.end()));
  };
}

// The generated code checks its inputs only when AOTI_RUNTIME_CHECK_INPUTS is set at its first
// run (it keeps the answer), and checking costs every call: so the fit check runs a second load
// of the package, made to check, and the timed one never checks. `file` lives as long as this.
Forward CheckedForward(LoadPackage load, std::shared_ptr<PrivateFile> file) {
  return [load, file](const std::vector<at::Tensor>& in) {
    const char* before = std::getenv("AOTI_RUNTIME_CHECK_INPUTS");
    struct Restore {
      bool was_set;
      std::string value;
      ~Restore() {
        if (was_set) ::setenv("AOTI_RUNTIME_CHECK_INPUTS", value.c_str(), 1);
        else ::unsetenv("AOTI_RUNTIME_CHECK_INPUTS");
      }
    } restore{before != nullptr, before != nullptr ? before : ""};
    ::setenv("AOTI_RUNTIME_CHECK_INPUTS", "1", 1);
    RunCapturingStderr([&] { load(file->path())->run(in); });
    return c10::IValue();
  };
}

}  // namespace

absl::StatusOr<BuiltModel> BuildAotInductor(const WorkloadSpec& spec, const c10::Device& device) {
  const AotInductorSpec& aoti = spec.model().aot_inductor();
  std::string read;
  absl::StatusOr<std::pair<absl::string_view, FileRecord>> package = ReadPackage(aoti, &read);
  if (!package.ok()) return package.status();
  absl::StatusOr<std::shared_ptr<PrivateFile>> file = PrivateFile::Write(package->first, ".pt2");
  if (!file.ok()) return absl::Status(file.status().code(), absl::StrCat(kField, ": ", file.status().message()));
  if (absl::Status s = ProvideLibtorchSoname(device); !s.ok()) return s;
  const std::string model_name = aoti.model_name().empty() ? "model" : aoti.model_name();
  absl::StatusOr<std::string> package_device = PackageDevice(aoti, (*file)->path(), model_name, device);
  if (!package_device.ok()) return package_device.status();

  const LoadPackage load = [model_name, device](const std::string& path) {
    return std::make_shared<Loader>(path, model_name, /*run_single_threaded=*/false, /*num_runners=*/1,
                                    device.has_index() ? device.index() : -1);
  };
  std::shared_ptr<Loader> loader;
  const UnpackedFolders before = UnpackedFolders::Before();
  absl::Status loaded = RunTorch(absl::StrCat("loading ", Where(aoti)), [&] { loader = load((*file)->path()); });
  if (!loaded.ok()) {
    before.RemoveNewHolding(LibraryEntry(package->first));
    return loaded;
  }

  BuiltModel model;
  model.name = "aot_inductor";
  model.revision = package->second.sha256;
  model.description["model_source"] = package->second.Description();
  model.description["aot_inductor.model_name"] = model_name;
  model.description["aot_inductor.device"] = *package_device;
  std::optional<TreeSpec> outputs = OutputSpec(*loader, &model.description["aot_inductor.outputs"]);
  RunTorch("reading the package's constants", [&] {
    for (const auto& [name, tensor] : loader->get_runner()->extract_constants_map(/*use_inactive=*/false))
      model.weights.push_back(tensor);
  }).IgnoreError();
  // Measured (torch 2.11, a Linear and tanh package): without markers the profile saw only
  // aten::expand, copy_, as_strided and resolve_conj; the matrix product (aoti_torch_cpu_addmm_out)
  // and the fused kernel were seen only as markers, with cpp.enable_kernel_profile.
  model.opaque_compute.why =
      "an AOTInductor package's compiled kernels and its calls into LibTorch's kernels (aoti_torch_*: matrix "
      "products, convolutions) run outside the operator dispatcher, so its FLOPs are a lower bound";
  model.opaque_compute.without_markers =
      "the profile shows only the dispatcher operators the package calls (views, copies, fallbacks); compiled with "
      "inductor_configs={\"cpp.enable_kernel_profile\": True} (aoti_compile_and_package), each compiled kernel and "
      "LibTorch call shows by name with its calls and time";
  model.checked_forward = CheckedForward(load, *file);
  model.forward = StructuredForward(loader, std::move(outputs));
  return model;
}

}  // namespace torchscan::workloads
