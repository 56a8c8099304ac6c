#include "worker/result_labels.h"

namespace torchscan::worker {
namespace {

std::string FileName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string ModelName(const v1::WorkloadSpec& workload) {
  const v1::ModelSpec& model = workload.model();
  if (model.has_torchscript()) {
    const v1::TorchScriptSpec& ts = model.torchscript();
    for (const std::string& source : {ts.source_name(), ts.path()}) {
      const std::string name = FileName(source);
      if (!name.empty()) return name;
    }
    return "TorchScript module";
  }
  return v1::ModelSpec::Builtin_Name(model.builtin());
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
