#include "worker/result_labels.h"

#include <optional>
#include "absl/strings/string_view.h"

#include "spec/model_format.h"

namespace torchscan::worker {
namespace {

std::string FileName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string ModelName(const v1::WorkloadSpec& workload) {
  const v1::ModelSpec& model = workload.model();
  const spec::ModelFormat* format = spec::FindModelFormat(model);
  if (format == nullptr) return "no model";
  const std::optional<spec::ModelFileView> file = format->File(model);
  if (!file) return v1::ModelSpec::Builtin_Name(model.builtin());
  for (absl::string_view source : {file->source_name, file->path}) {
    const std::string name = FileName(std::string(source));
    if (!name.empty()) return name;
  }
  // "a TorchScript module" -> "TorchScript module"
  const std::string noun = format->noun();
  return std::string(noun.substr(noun.find(' ') + 1));
}

void LabelResult(const v1::JobSpec& spec, v1::JobResult* result) {
  if (result->has_report()) {
    v1::BenchmarkReport* report = result->mutable_report();
    report->set_label(spec.label());
    if (spec.has_measure()) report->set_model(ModelName(spec.measure().workload()));
  } else if (result->has_comparison()) {
    v1::Comparison* comparison = result->mutable_comparison();
    comparison->set_label(spec.label());
    comparison->mutable_before()->set_label(spec.label());
    comparison->mutable_after()->set_label(spec.label());
    if (spec.has_compare()) {
      comparison->mutable_before()->set_model(ModelName(spec.compare().baseline()));
      comparison->mutable_after()->set_model(ModelName(spec.compare().candidate()));
    }
  }
}

}  // namespace torchscan::worker
