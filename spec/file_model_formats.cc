// The model formats loaded from a file (spec/model_format.h): a TorchScript module and an
// AOTInductor package. Both travel as a path on the daemon's machine or as bytes named by
// their source; what differs is the message, the bytes field and which workload fields apply.
#include <string>

#include "absl/strings/str_cat.h"
#include "proto/spec_limits.h"
#include "spec/field_rules.h"
#include "spec/model_format.h"

namespace torchscan::spec {
namespace {

// The message of a file format (`field` names it): a source, paths no longer than a path, bytes
// not empty.
template <typename Traits>
absl::Status ValidateFile(const std::string& field, const typename Traits::Spec& spec) {
  using Spec = typename Traits::Spec;
  if (spec.source_case() == Spec::SOURCE_NOT_SET)
    return FieldError(field, absl::StrCat("set path or ", Traits::kBytesField));
  if (absl::Status s = CheckPathLength(field + ".path", spec.path()); !s.ok()) return s;
  if (absl::Status s = CheckPathLength(field + ".source_name", spec.source_name()); !s.ok()) return s;
  if (spec.source_case() != Spec::kPath && Traits::Bytes(spec).empty())
    return FieldError(absl::StrCat(field, ".", Traits::kBytesField),
                      absl::StrCat("is empty; send the bytes of ", Traits::kSaved));
  return absl::OkStatus();
}

// The rules every file format shares, over its message `Spec` (path / <bytes> / source_name),
// with `Traits` naming its field, its bytes and what saves it.
template <typename Traits>
class FileFormat : public ModelFormat {
 public:
  using Spec = typename Traits::Spec;

  std::string field() const override { return Traits::kField; }
  std::string noun() const override { return Traits::kNoun; }

  absl::Status Validate(const std::string& where, const v1::WorkloadSpec& w) const override {
    if (absl::Status s = ValidateFile<Traits>(absl::StrCat(where, ".model.", Traits::kField), Traits::Get(w.model()));
        !s.ok())
      return s;
    if (w.inputs().empty())
      return FieldError(where + ".inputs",
                        absl::StrCat(Traits::kNoun, " needs its inputs; add one InputSpec per argument"));
    return Traits::ValidateWorkload(where, w);
  }

  std::optional<ModelFileView> File(const v1::ModelSpec& model) const override {
    const Spec& spec = Traits::Get(model);
    ModelFileView view;
    view.field = absl::StrCat("model.", Traits::kField);
    view.bytes_field = Traits::kBytesField;
    view.sent_as_bytes = spec.source_case() != Spec::kPath;
    view.path = spec.path();
    view.bytes = Traits::Bytes(spec);
    view.source_name = spec.source_name();
    return view;
  }

  void ClearBytes(v1::ModelSpec* model) const override {
    Spec* spec = Traits::Mutable(model);
    if (spec->source_case() != Spec::kPath) Traits::SetBytes(spec, "");
  }
  void ClearSourceName(v1::ModelSpec* model) const override { Traits::Mutable(model)->clear_source_name(); }
  void SetPath(const std::string& path, v1::ModelSpec* model) const override { Traits::Mutable(model)->set_path(path); }
  void SetBytes(std::string bytes, const std::string& source_name, v1::ModelSpec* model) const override {
    Spec* spec = Traits::Mutable(model);
    Traits::SetBytes(spec, std::move(bytes));
    spec->set_source_name(source_name);
  }
};

struct TorchScriptTraits {
  using Spec = v1::TorchScriptSpec;
  static constexpr const char* kField = "torchscript";
  static constexpr const char* kNoun = "a TorchScript module";
  static constexpr const char* kBytesField = "module_bytes";
  static constexpr const char* kSaved = "a module saved with torch.jit.save";
  static const Spec& Get(const v1::ModelSpec& m) { return m.torchscript(); }
  static Spec* Mutable(v1::ModelSpec* m) { return m->mutable_torchscript(); }
  static const std::string& Bytes(const Spec& s) { return s.module_bytes(); }
  static void SetBytes(Spec* s, std::string bytes) { s->set_module_bytes(std::move(bytes)); }
  static absl::Status ValidateWorkload(const std::string&, const v1::WorkloadSpec&) { return absl::OkStatus(); }
};

struct AotInductorTraits {
  using Spec = v1::AotInductorSpec;
  static constexpr const char* kField = "aot_inductor";
  static constexpr const char* kNoun = "an AOTInductor package";
  static constexpr const char* kBytesField = "package_bytes";
  static constexpr const char* kSaved = "a package written by torch._inductor.aoti_compile_and_package";
  static const Spec& Get(const v1::ModelSpec& m) { return m.aot_inductor(); }
  static Spec* Mutable(v1::ModelSpec* m) { return m->mutable_aot_inductor(); }
  static const std::string& Bytes(const Spec& s) { return s.package_bytes(); }
  static void SetBytes(Spec* s, std::string bytes) { s->set_package_bytes(std::move(bytes)); }

  // A package runs as it was compiled: what would change its weights or its graph is refused,
  // naming how to get that change (compile it in).
  static absl::Status ValidateWorkload(const std::string& where, const v1::WorkloadSpec& w) {
    const std::string& name = w.model().aot_inductor().model_name();
    if (name.size() > kMaxPathBytes || name.find('/') != std::string::npos || name == "." || name == "..")
      return FieldError(where + ".model.aot_inductor.model_name",
                        "is a model's name inside the package (\"\" or \"model\", as aoti_compile_and_package "
                        "writes it), not a path");
    constexpr const char* kCompiled = "does not apply to an AOTInductor package, which runs as it was compiled; ";
    if (w.freeze() || w.optimize_for_inference())
      return FieldError(where + (w.freeze() ? ".freeze" : ".optimize_for_inference"),
                        absl::StrCat(kCompiled, "unset it (compiling is the optimization)"));
    if (w.dtype() != v1::WorkloadSpec::float32)
      return FieldError(where + ".dtype",
                        absl::StrCat(kCompiled,
                                     "export and compile the model in that precision "
                                     "(model.to(torch.bfloat16) before torch.export.export) and leave "
                                     "dtype at float32"));
    if (w.channels_last())
      return FieldError(where + ".channels_last",
                        absl::StrCat(kCompiled, "export it with channels_last inputs and weights instead"));
    return absl::OkStatus();
  }
};

}  // namespace

absl::Status ValidateTorchScriptFile(const std::string& field, const v1::TorchScriptSpec& ts) {
  return ValidateFile<TorchScriptTraits>(field, ts);
}

const ModelFormat& TorchScriptFormat() {
  static const FileFormat<TorchScriptTraits> format;
  return format;
}

const ModelFormat& AotInductorFormat() {
  static const FileFormat<AotInductorTraits> format;
  return format;
}

}  // namespace torchscan::spec
