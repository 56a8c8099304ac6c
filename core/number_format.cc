#include "core/number_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace torchscan {
namespace {

struct Unit {
  double factor;
  const char* name;
};

constexpr Unit kTimeUnits[] = {{1e-9, "ns"}, {1e-6, "µs"}, {1e-3, "ms"}, {1, "s"}};
constexpr Unit kByteUnits[] = {{1, "B"},
                               {1024.0, "KiB"},
                               {1024.0 * 1024, "MiB"},
                               {1024.0 * 1024 * 1024, "GiB"},
                               {1024.0 * 1024 * 1024 * 1024, "TiB"}};
constexpr Unit kSiPrefixes[] = {{1, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}, {1e15, "P"}};

std::string NonFinite(double value) {
  if (std::isnan(value)) return "NaN";
  return value > 0 ? "Infinity" : "-Infinity";
}

// Decimals that give 4 significant digits for |x| (at least 0, at most 9).
int Decimals(double x) {
  if (x == 0) return 0;
  const int d = 3 - static_cast<int>(std::floor(std::log10(std::fabs(x))));
  return d < 0 ? 0 : (d > 9 ? 9 : d);
}

// `value` in the largest of `units` that keeps it >= 1 (the smallest unit for tiny values),
// moving one unit up when rounding reaches the next unit (999.96 µs is "1.000 ms"). Returns
// the number and the unit's name separately.
template <size_t N>
std::pair<std::string, const char*> Scaled(double value, const Unit (&units)[N]) {
  const double magnitude = std::fabs(value);
  size_t i = 0;
  while (i + 1 < N && magnitude >= units[i + 1].factor) ++i;
  double x = value / units[i].factor;
  int decimals = Decimals(x);
  const double rounded = std::round(std::fabs(x) * std::pow(10.0, decimals)) / std::pow(10.0, decimals);
  if (i + 1 < N && rounded >= units[i + 1].factor / units[i].factor * (1 - 1e-12)) {
    ++i;
    x = value / units[i].factor;
    decimals = Decimals(1.0);  // x rounds to 1.000 in the larger unit
  }
  return {absl::StrFormat("%.*f", decimals, x), units[i].name};
}

}  // namespace

std::string FormatSeconds(double seconds) {
  if (!std::isfinite(seconds)) return NonFinite(seconds);
  if (seconds == 0) return "0 s";
  auto [number, unit] = Scaled(seconds, kTimeUnits);
  return number + " " + unit;
}

std::string FormatBytes(double bytes) {
  if (!std::isfinite(bytes)) return NonFinite(bytes);
  if (std::fabs(bytes) < 1024 && bytes == std::floor(bytes)) return absl::StrFormat("%.0f B", bytes);
  auto [number, unit] = Scaled(bytes, kByteUnits);
  return number + " " + unit;
}

std::string FormatSi(double value, std::string_view unit) {
  if (!std::isfinite(value)) return NonFinite(value);
  std::string number, prefix;
  if (std::fabs(value) < 1) {
    number = value == 0 ? "0" : absl::StrFormat("%.4g", value);
  } else {
    auto [n, p] = Scaled(value, kSiPrefixes);
    number = n;
    prefix = p;
  }
  const std::string u(unit);
  if (unit.empty()) return prefix.empty() ? number : number + " " + prefix;
  // A symbol-like unit takes the prefix directly (MFLOP); a word unit keeps it apart (M samples/s).
  const bool symbol = unit.front() >= 'A' && unit.front() <= 'Z';
  if (prefix.empty()) return absl::StrCat(number, " ", u);
  return symbol ? absl::StrCat(number, " ", prefix, u) : absl::StrCat(number, " ", prefix, " ", u);
}

std::string FormatMetric(double value, std::string_view unit) {
  if (unit == "s") return FormatSeconds(value);
  if (unit == "bytes" || unit == "B") return FormatBytes(value);
  return FormatSi(value, unit);
}

std::string FormatSignedMetric(double value, std::string_view unit) {
  if (!std::isfinite(value)) return NonFinite(value);
  return (value < 0 ? "-" : "+") + FormatMetric(std::fabs(value), unit);
}

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) return NonFinite(fraction);
  const double percent = fraction * 100;
  return std::fabs(percent) < 1 ? absl::StrFormat("%+.2f%%", percent) : absl::StrFormat("%+.1f%%", percent);
}

std::string FormatRatio(double ratio) {
  if (!std::isfinite(ratio)) return NonFinite(ratio);
  return absl::StrFormat("%.3g×", ratio);
}

std::string FormatProbability(double p) {
  if (!std::isfinite(p)) return NonFinite(p);
  return p != 0 && p < 1e-4 ? absl::StrFormat("%.1e", p) : absl::StrFormat("%.2g", p);
}

std::string FormatNumber(double value) {
  if (!std::isfinite(value)) return NonFinite(value);
  return absl::StrFormat("%.6g", value);
}

std::string FormatCount(int64_t count) {
  const std::string digits = std::to_string(count < 0 ? -(count + 1) + 1ULL : static_cast<uint64_t>(count));
  std::string out = count < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FormatAmount(double value, std::string_view unit) {
  if (!std::isfinite(value) || value != std::floor(value) || std::fabs(value) >= 1e15) return FormatSi(value, unit);
  const std::string count = FormatCount(static_cast<int64_t>(value));
  return unit.empty() ? count : absl::StrCat(count, " ", std::string(unit));
}

std::string ShortestDouble(double value) {
  if (!std::isfinite(value)) return NonFinite(value);
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

}  // namespace torchscan
