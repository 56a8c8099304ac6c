// libFuzzer's entry point for any target that defines torchscan::fuzz::FuzzOne.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  torchscan::fuzz::FuzzOne(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
