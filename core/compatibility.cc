#include "core/compatibility.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/message_diff.h"

namespace torchscan {
namespace {

const std::vector<std::string>& BlockingEnvironmentFields() {
  static const std::vector<std::string> fields = {
      "environment.cpu_model",     "environment.logical_cores", "environment.physical_cores",
      "environment.memory_bytes",  "environment.device_name",   "environment.libtorch_version",
      "environment.libtorch_cuda", "environment.compiler",      "environment.torchscan_version",
      "environment.cuda_runtime",
  };
  return fields;
}

const std::vector<std::string>& VolatileEnvironmentFields() {
  static const std::vector<std::string> fields = {"environment.load_average_1m", "environment.load_average_5m",
                                                  "environment.load_average_15m", "environment.captured_at"};
  return fields;
}

bool IsBlockingEnvironmentField(const std::string& field) {
  const auto& blocking = BlockingEnvironmentFields();
  return std::find(blocking.begin(), blocking.end(), field) != blocking.end();
}

std::vector<FieldDifference> EnvironmentDifferences(const v1::BenchmarkReport& before,
                                                    const v1::BenchmarkReport& after) {
  std::vector<FieldDifference> diffs;
  DiffMessages(before.environment(), after.environment(), "environment", VolatileEnvironmentFields(), &diffs);
  return diffs;
}

bool Unknown(const std::string& value) { return value.empty() || value == "unknown"; }

template <typename T>
void AddMismatch(const std::string& field, const T& before, const T& after, v1::Compatibility* c) {
  v1::Mismatch* m = c->add_mismatches();
  m->set_field(field);
  m->set_before(before);
  m->set_after(after);
}

}  // namespace

v1::Compatibility CheckCompatibility(const v1::BenchmarkReport& before, const v1::BenchmarkReport& after) {
  v1::Compatibility c;
  for (const FieldDifference& d : EnvironmentDifferences(before, after))
    if (IsBlockingEnvironmentField(d.field)) AddMismatch(d.field, d.before, d.after, &c);
  for (const auto& [field, b, a] :
       {std::tuple{"environment.cpu_model", before.environment().cpu_model(), after.environment().cpu_model()},
        std::tuple{"environment.device_name", before.environment().device_name(), after.environment().device_name()}})
    if (Unknown(b) && Unknown(a)) AddMismatch(std::string(field), std::string("unknown"), std::string("unknown"), &c);
  if (before.settings().device() != after.settings().device())
    AddMismatch("settings.device", before.settings().device(), after.settings().device(), &c);
  std::vector<FieldDifference> inputs;
  DiffMessages(before.input_metadata(), after.input_metadata(), "input_metadata", {}, &inputs);
  for (const FieldDifference& d : inputs) AddMismatch(d.field, d.before, d.after, &c);
  if (before.work_units() != after.work_units())
    AddMismatch("work_units", absl::StrCat(before.work_units()), absl::StrCat(after.work_units()), &c);
  if (before.work_unit() != after.work_unit()) AddMismatch("work_unit", before.work_unit(), after.work_unit(), &c);
  c.set_compatible(c.mismatches().empty());
  return c;
}

google::protobuf::RepeatedPtrField<v1::SettingChange> ChangedSettings(const v1::BenchmarkReport& before,
                                                                      const v1::BenchmarkReport& after) {
  std::vector<FieldDifference> diffs;
  // The interleave id names the job, not a setting: it differs between any two jobs.
  DiffMessages(before.settings(), after.settings(), "settings", {"settings.device", "settings.timing.interleave_id"},
               &diffs);
  for (FieldDifference& d : EnvironmentDifferences(before, after))
    if (!IsBlockingEnvironmentField(d.field)) diffs.push_back(std::move(d));
  DiffStringMaps({before.workload().begin(), before.workload().end()},
                 {after.workload().begin(), after.workload().end()}, "workload", &diffs);

  google::protobuf::RepeatedPtrField<v1::SettingChange> changes;
  for (const FieldDifference& d : diffs) {
    v1::SettingChange* c = changes.Add();
    c->set_name(d.field);
    c->set_before(d.before);
    c->set_after(d.after);
  }
  return changes;
}

}  // namespace torchscan
