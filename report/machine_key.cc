#include "report/machine_key.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchscan::report {
namespace {

// The key's fields in order, with the name a change is shown by.
constexpr std::pair<const char*, const char*> kFields[] = {
    {"cpu", "CPU"},     {"cores", "cores"},           {"memory", "memory"},
    {"os", "OS"},       {"kernel", "kernel"},         {"governor", "CPU governor"},
    {"turbo", "turbo"}, {"affinity", "CPU affinity"}, {"libtorch", "LibTorch"},
    {"blas", "BLAS"},   {"torchscan", "TorchScan"},   {"device", "device"},
};

std::string Escaped(const std::string& value) {
  if (value.empty()) return "unknown";
  std::string out;
  for (char c : value) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\\' || c == ';') out += '\\';
    out += (u < 0x20 || u == 0x7f) ? ' ' : c;
  }
  return out;
}

std::string FileName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Cores(const v1::Environment& e) {
  auto count = [](bool known, int32_t n) { return known ? absl::StrCat(n) : std::string("unknown"); };
  return absl::StrCat(count(e.has_logical_cores(), e.logical_cores()), " logical, ",
                      count(e.has_physical_cores(), e.physical_cores()), " physical");
}

std::string Memory(const v1::Environment& e) {
  if (!e.has_memory_bytes()) return "";
  return absl::StrFormat("%.1f GiB", static_cast<double>(e.memory_bytes()) / (1024.0 * 1024.0 * 1024.0));
}

// The key's (field, value) pairs, values unescaped.
std::vector<std::pair<std::string, std::string>> Parse(const std::string& key) {
  std::vector<std::pair<std::string, std::string>> fields;
  std::string segment;                  // unescaped
  size_t name_end = std::string::npos;  // where the first unescaped '=' was
  auto finish = [&] {
    if (name_end == std::string::npos) fields.emplace_back(segment, "");
    else fields.emplace_back(segment.substr(0, name_end), segment.substr(name_end + 1));
    segment.clear();
    name_end = std::string::npos;
  };
  for (size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (c == '\\' && i + 1 < key.size()) {
      segment += key[++i];
    } else if (c == ';') {
      finish();
      if (i + 1 < key.size() && key[i + 1] == ' ') ++i;
    } else {
      if (c == '=' && name_end == std::string::npos) name_end = segment.size();
      segment += c;
    }
  }
  finish();
  return fields;
}

std::string DisplayName(const std::string& field) {
  for (const auto& [name, display] : kFields)
    if (field == name) return display;
  return field;
}

}  // namespace

std::string MachineKey(const v1::Environment& e) {
  const std::string values[] = {
      e.cpu_model(),
      Cores(e),
      Memory(e),
      e.os(),
      e.kernel(),
      e.cpu_governor(),
      e.turbo(),
      e.cpu_affinity(),
      e.libtorch_version(),
      FileName(e.blas_library()),
      e.torchscan_version(),
      e.device_name(),
  };
  std::string key;
  for (size_t i = 0; i < std::size(kFields); ++i)
    absl::StrAppend(&key, i == 0 ? "" : "; ", kFields[i].first, "=", Escaped(values[i]));
  return key;
}

std::vector<std::string> MachineKeyChanges(const std::string& before, const std::string& after) {
  std::vector<std::string> changes;
  if (before.empty() || after.empty() || before == after) return changes;
  const auto old_fields = Parse(before);
  const auto new_fields = Parse(after);
  auto value_in = [](const auto& fields, const std::string& name) -> const std::string* {
    for (const auto& [field, value] : fields)
      if (field == name) return &value;
    return nullptr;
  };
  auto describe = [&](const std::string& name) {
    const std::string* was = value_in(old_fields, name);
    const std::string* is = value_in(new_fields, name);
    if (was != nullptr && is != nullptr && *was == *is) return;
    changes.push_back(absl::StrCat(DisplayName(name), ": ", was ? *was : "(none)", " -> ", is ? *is : "(none)"));
  };
  for (const auto& [name, value] : new_fields) describe(name);
  for (const auto& [name, value] : old_fields)
    if (value_in(new_fields, name) == nullptr) describe(name);
  return changes;
}

}  // namespace torchscan::report
