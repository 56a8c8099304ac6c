// The registry of model formats (spec/model_format.h) and the one without a file: built-ins.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spec/builtin_models.h"
#include "spec/field_rules.h"
#include "spec/model_format.h"

namespace torchscan::spec {
namespace {

class Builtin final : public ModelFormat {
 public:
  std::string field() const override { return "builtin"; }
  std::string noun() const override { return "a built-in model"; }

  absl::Status Validate(const std::string& where, const v1::WorkloadSpec& w) const override {
    if (FindBuiltin(w.model().builtin()) == nullptr)
      return FieldError(where + ".model.builtin", "choose " + BuiltinNameList(", ", " or "));
    if (w.freeze() || w.optimize_for_inference())
      return FieldError(where + (w.freeze() ? ".freeze" : ".optimize_for_inference"),
                        "applies to TorchScript models only; unset it for model.builtin");
    if (w.work_units() != 0 || !w.work_unit().empty())
      return FieldError(where + (w.work_units() != 0 ? ".work_units" : ".work_unit"),
                        "applies to models from a file only (built-ins define theirs); unset it");
    return absl::OkStatus();
  }
};

// The registry: every format by its ModelSpec source case, in the order errors list them.
struct Entry {
  v1::ModelSpec::SourceCase source;
  const ModelFormat& format;
};

const std::vector<Entry>& Registry() {
  static const auto* const registry = new std::vector<Entry>{
      {v1::ModelSpec::kBuiltin, BuiltinFormat()},
      {v1::ModelSpec::kTorchscript, TorchScriptFormat()},
      {v1::ModelSpec::kAotInductor, AotInductorFormat()},
  };
  return *registry;
}

}  // namespace

const ModelFormat& BuiltinFormat() {
  static const Builtin format;
  return format;
}

const ModelFormat* FindModelFormat(v1::ModelSpec::SourceCase source) {
  for (const Entry& entry : Registry())
    if (entry.source == source) return &entry.format;
  return nullptr;
}

const ModelFormat* FindModelFormat(const v1::ModelSpec& model) { return FindModelFormat(model.source_case()); }

std::vector<const ModelFormat*> ModelFormats() {
  std::vector<const ModelFormat*> formats;
  for (const Entry& entry : Registry()) formats.push_back(&entry.format);
  return formats;
}

std::string ModelFormatChoices() {
  std::string choices;
  const std::vector<const ModelFormat*> formats = ModelFormats();
  for (size_t i = 0; i < formats.size(); ++i) {
    if (i > 0) absl::StrAppend(&choices, i + 1 == formats.size() ? " or " : ", ");
    choices += formats[i]->field();
    if (formats[i] == &BuiltinFormat()) absl::StrAppend(&choices, " (", BuiltinNameList(", ", ", "), ")");
  }
  return choices;
}

}  // namespace torchscan::spec
