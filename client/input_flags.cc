#include "client/input_flags.h"

#include <cctype>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "proto/spec_limits.h"
#include "spec/job_spec.h"

namespace torchscan {
namespace {

constexpr const char* kInputForm =
    "use [NAME=]SHAPE[:DTYPE][:LOW..HIGH], e.g. 64x256, ids=4x8:int64:0..30522 or 8x3x32x32:float32:-1..1 "
    "(DTYPE float32, int64 or int32)";

absl::Status InputError(const std::string& text, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("--input \"", text, "\": ", what, "; ", kInputForm));
}

bool IsName(absl::string_view name) {
  if (name.empty() || name.size() > kMaxInputFlagNameBytes || std::isdigit(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// "NAME=REST" with a valid NAME: sets *name and returns REST; otherwise returns `text`.
std::string SplitName(const std::string& text, std::string* name) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || !IsName(absl::string_view(text).substr(0, eq))) return text;
  *name = text.substr(0, eq);
  return text.substr(eq + 1);
}

}  // namespace

absl::StatusOr<v1::InputSpec> ParseInputFlag(const std::string& text, int index) {
  v1::InputSpec input;
  std::string name;
  const std::string rest = SplitName(text, &name);
  if (!name.empty()) input.set_name(name);
  if (rest.empty()) return InputError(text, "no shape");
  std::vector<std::string> parts = absl::StrSplit(rest, ':');
  if (parts.size() > 3) return InputError(text, "too many ':' parts");
  v1::GeneratedTensor* g = input.mutable_generated();
  g->set_seed(index);
  if (parts[0] != "scalar") {
    for (absl::string_view dim : absl::StrSplit(parts[0], 'x')) {
      int64_t n = 0;
      if (!absl::SimpleAtoi(dim, &n) || n < 0)
        return InputError(text, absl::StrCat("\"", dim, "\" is not a dimension >= 0"));
      g->add_shape(n);
    }
  }
  bool have_dtype = false, have_range = false;
  int64_t low = 0, high = 0;
  double low_f = 0, high_f = 0;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const size_t dots = part.find("..");
    if (dots == std::string::npos) {
      v1::GeneratedTensor::DType dtype;
      if (have_dtype || have_range || !v1::GeneratedTensor::DType_Parse(part, &dtype))
        return InputError(text, absl::StrCat("\"", part, "\" is not a dtype"));
      g->set_dtype(dtype);
      have_dtype = true;
    } else {
      const std::string a = part.substr(0, dots), b = part.substr(dots + 2);
      if (have_range || !absl::SimpleAtod(a, &low_f) || !absl::SimpleAtod(b, &high_f) || !(high_f > low_f))
        return InputError(text, absl::StrCat("\"", part, "\" is not a range LOW..HIGH with HIGH > LOW"));
      have_range = true;
      if (absl::SimpleAtoi(a, &low) && absl::SimpleAtoi(b, &high)) continue;
      low = high = 0;  // not integers: only a float range
    }
  }
  if (g->dtype() != v1::GeneratedTensor::float32) {
    if (!have_range || high <= low)
      return InputError(text, "an integer input needs its integer range LOW..HIGH (values in [LOW, HIGH))");
    g->mutable_integers()->set_low(low);
    g->mutable_integers()->set_high(high);
  } else if (have_range) {
    g->mutable_uniform()->set_low(low_f);
    g->mutable_uniform()->set_high(high_f);
  }
  return input;
}

absl::StatusOr<v1::InputSpec> ParseInputFileFlag(const std::string& text, FileTransport transport) {
  v1::InputSpec input;
  std::string name;
  const std::string path = SplitName(text, &name);
  if (!name.empty()) input.set_name(name);
  if (absl::Status s = SetTensorFile(path, transport, &input); !s.ok())
    return absl::InvalidArgumentError(absl::StrCat("--input-file \"", text, "\": ", s.message()));
  return input;
}

absl::Status AddInputFlags(const std::vector<InputFlag>& flags, FileTransport transport, v1::WorkloadSpec* workload) {
  int index = 0;
  for (const auto& [flag, text] : flags) {
    absl::StatusOr<v1::InputSpec> input =
        flag == "--input-file" ? ParseInputFileFlag(text, transport) : ParseInputFlag(text, index);
    if (!input.ok()) return input.status();
    *workload->add_inputs() = *std::move(input);
    ++index;
  }
  return absl::OkStatus();
}

absl::Status AddMetadataFlags(const std::vector<std::string>& flags, v1::WorkloadSpec* workload) {
  auto& metadata = *workload->mutable_input_metadata();
  for (const std::string& text : flags) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos)
      return absl::InvalidArgumentError(
          absl::StrCat("--metadata \"", text, "\": use KEY=VALUE, e.g. --metadata dataset_revision=v3"));
    const std::string key = text.substr(0, eq);
    if (metadata.count(key) != 0)
      return absl::InvalidArgumentError(absl::StrCat("--metadata: key \"", key, "\" is given twice"));
    metadata[key] = text.substr(eq + 1);
  }
  return spec::ValidateInputMetadata("--metadata", metadata);
}

}  // namespace torchscan
