#include "core/timestamp.h"

#include <cstdio>
#include <ctime>

namespace torchscan {

std::string FormatRfc3339Utc(std::chrono::system_clock::time_point time) {
  const auto millis = std::chrono::floor<std::chrono::milliseconds>(time);
  const auto seconds = std::chrono::floor<std::chrono::seconds>(millis);
  const time_t t = std::chrono::system_clock::to_time_t(seconds);
  struct tm utc {};
  if (gmtime_r(&t, &utc) == nullptr) return "unknown";
  const long long year = static_cast<long long>(utc.tm_year) + 1900;
  if (year < 0 || year > 9999) return "unknown";
  char text[40];
  const size_t n = strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  if (n == 0) return "unknown";
  std::snprintf(text + n, sizeof(text) - n, ".%03dZ", static_cast<int>((millis - seconds).count()));
  return text;
}

std::string NowRfc3339() { return FormatRfc3339Utc(std::chrono::system_clock::now()); }

}  // namespace torchscan
