#include "benchmarks/benchmark_args.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace torchscan::benchmarks {

bool TakeQuickFlag(int* argc, char** argv) {
  bool quick = false;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0) quick = true;
    else argv[kept++] = argv[i];
  }
  *argc = kept;
  return quick;
}

std::optional<int> PositiveInt(const char* text) {
  if (text == nullptr || *text < '0' || *text > '9') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < 1 || value > INT_MAX) return std::nullopt;
  return static_cast<int>(value);
}

}  // namespace torchscan::benchmarks
