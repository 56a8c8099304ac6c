#include "workloads/model_builders.h"

#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spec/builtin_models.h"
#include "workloads/aot_inductor_build.h"
#include "workloads/builtin_build.h"
#include "workloads/torchscript_build.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::ModelSpec;
using torchscan::v1::WorkloadSpec;
using Builder = std::function<absl::StatusOr<BuiltModel>(const WorkloadSpec&, const c10::Device&, at::ScalarType)>;

// The registry: one builder per format, by the source case spec/model_formats.cc lists.
struct Entry {
  ModelSpec::SourceCase source;
  Builder build;
};

const std::vector<Entry>& Registry() {
  static const auto* const registry = new std::vector<Entry>{
      {ModelSpec::kBuiltin,
       [](const WorkloadSpec& spec, const c10::Device& device, at::ScalarType dtype) {
         return BuildBuiltin(*spec::FindBuiltin(spec.model().builtin()), device, dtype, spec.channels_last());
       }},
      {ModelSpec::kTorchscript,
       [](const WorkloadSpec& spec, const c10::Device& device, at::ScalarType dtype) {
         return BuildTorchScript(spec.model().torchscript(), spec, device, dtype);
       }},
      {ModelSpec::kAotInductor, [](const WorkloadSpec& spec, const c10::Device& device,
                                   at::ScalarType) { return BuildAotInductor(spec, device); }},
  };
  return *registry;
}

}  // namespace

absl::StatusOr<BuiltModel> BuildModelOf(const WorkloadSpec& spec, const c10::Device& device, at::ScalarType dtype) {
  for (const Entry& entry : Registry())
    if (entry.source == spec.model().source_case()) return entry.build(spec, device, dtype);
  return absl::InvalidArgumentError(
      absl::StrCat("model: this worker cannot build a model of source ", spec.model().source_case()));
}

}  // namespace torchscan::workloads
