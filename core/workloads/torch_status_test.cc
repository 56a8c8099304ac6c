#include "core/workloads/torch_status.h"

#include <stdexcept>

#include <c10/util/Exception.h>
#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

bool Contains(const absl::Status& s, absl::string_view text) {
  return s.message().find(text) != absl::string_view::npos;
}

TEST(RunTorch, ReturnsOkWhenNothingIsThrown) {
  int runs = 0;
  EXPECT_TRUE(RunTorch("noop", [&] { ++runs; }).ok());
  EXPECT_EQ(runs, 1);
}

TEST(RunTorch, MapsC10ErrorToTheGivenCodeWithContextAndWithoutBacktrace) {
  const absl::Status s = RunTorch("loading model", [] { TORCH_CHECK(false, "bad magic number"); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "loading model: "));
  EXPECT_TRUE(Contains(s, "bad magic number"));
  EXPECT_FALSE(Contains(s, "Exception raised from"));  // the C++ backtrace is dropped
  EXPECT_EQ(RunTorch("x", [] { TORCH_CHECK(false, "boom"); }, absl::StatusCode::kInternal).code(),
            absl::StatusCode::kInternal);
}

TEST(RunTorch, OutOfMemoryIsResourceExhausted) {
  EXPECT_EQ(RunTorch("call", [] { C10_THROW_ERROR(OutOfMemoryError, "CUDA out of memory."); }).code(),
            absl::StatusCode::kResourceExhausted);
  // The CPU allocator throws a plain c10::Error with this message.
  EXPECT_EQ(RunTorch("call", [] {
              TORCH_CHECK(false, "DefaultCPUAllocator: can't allocate memory: you tried to allocate 1 bytes.");
            }).code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(RunTorch("call", [] { throw std::bad_alloc(); }).code(), absl::StatusCode::kResourceExhausted);
}

TEST(RunTorch, OtherExceptions) {
  const absl::Status s = RunTorch("script", [] { throw std::runtime_error("AssertionError: wrong shape"); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "AssertionError: wrong shape"));
  EXPECT_EQ(RunTorch("odd", [] { throw 42; }).code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace torchscan::workloads
