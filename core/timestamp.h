// RFC 3339 timestamps in UTC with milliseconds, the one format of every time TorchScan
// records (report and comparison creation, environment capture, job records).
#pragma once

#include <chrono>
#include <string>

namespace torchscan {

// "2024-05-01T12:34:56.999Z": UTC, milliseconds truncated (times before 1970 round down).
// "unknown" for years outside 0..9999.
std::string FormatRfc3339Utc(std::chrono::system_clock::time_point time);

// FormatRfc3339Utc(now).
std::string NowRfc3339();

}  // namespace torchscan
