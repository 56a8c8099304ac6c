#include "spec/field_rules.h"

#include <cmath>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "proto/spec_limits.h"

namespace torchscan::spec {

absl::Status FieldError(absl::string_view field, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", what));
}

absl::Status CheckPathLength(absl::string_view field, absl::string_view path) {
  if (path.size() <= kMaxPathBytes) return absl::OkStatus();
  return FieldError(field, absl::StrCat(path.size(), " bytes is longer than a path can be (", kMaxPathBytes, ")"));
}

absl::Status CheckThreadCount(absl::string_view field, int64_t threads, int64_t max, bool zero_allowed) {
  if ((threads == 0 && zero_allowed) || (threads >= 1 && threads <= max)) return absl::OkStatus();
  return FieldError(field,
                    absl::StrCat("must be ", zero_allowed ? "0 (default) or " : "", "1..", max, ", got ", threads));
}

bool IsTolerance(double value) { return std::isfinite(value) && value >= 0; }

bool IsOwnInputMetadataKey(absl::string_view key) { return key == "seed" || absl::StartsWith(key, "input."); }

}  // namespace torchscan::spec
