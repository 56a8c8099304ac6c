#include "workloads/torch_status.h"

#include <stdexcept>

#include <c10/util/Exception.h>
#include <gtest/gtest.h>

#include "libtorch_build_info.h"

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
  EXPECT_EQ(RunTorch(
                "x", [] { TORCH_CHECK(false, "boom"); }, absl::StatusCode::kInternal)
                .code(),
            absl::StatusCode::kInternal);
}

TEST(RunTorch, OutOfMemoryIsResourceExhausted) {
  EXPECT_EQ(RunTorch("call", [] { C10_THROW_ERROR(OutOfMemoryError, "CUDA out of memory."); }).code(),
            absl::StatusCode::kResourceExhausted);
  // The CPU allocator throws a plain c10::Error with this message.
  EXPECT_EQ(
      RunTorch("call",
               [] { TORCH_CHECK(false, "DefaultCPUAllocator: can't allocate memory: you tried to allocate 1 bytes."); })
          .code(),
      absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(RunTorch("call", [] { throw std::bad_alloc(); }).code(), absl::StatusCode::kResourceExhausted);
}

TEST(RunTorch, AnInterpreterErrorKeepsItsErrorLineNotTheTraceback) {
  const std::string thrown =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript, serialized code (most recent call last):\n"
      "  File \"code/__torch__.py\", line 10, in forward\n"
      "    return (l).forward(x, )\n"
      "            ~~~~~~~~~~ <--- HERE\n"
      "\n"
      "Traceback of TorchScript, original code (most recent call last):\n"
      "  File \"mk.py\", line 5, in forward\n"
      "    def forward(s,x): return s.l(x)\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x65 and 64x256)\n";
  const absl::Status s = RunTorch("the call", [&] { throw std::runtime_error(thrown); });
  EXPECT_EQ(s.message(), "the call: RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x65 and 64x256)");
  // A module defined from C++ source shows its code unindented in the traceback.
  const std::string defined =
      "The following operation failed in the TorchScript interpreter.\n"
      "Traceback of TorchScript (most recent call last):\n"
      "  File \"<string>\", line 3, in forward\n"
      "\n"
      "def forward(self, x):\n"
      "    return torch.tanh(torch.mm(x, self.w))\n"
      "                      ~~~~~~~~ <--- HERE\n"
      "def heavy(self, x):\n"
      "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x65 and 64x64)\n";
  EXPECT_EQ(RunTorch("call", [&] { throw std::runtime_error(defined); }).message(),
            "call: RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x65 and 64x64)");
  // Any other message stays whole, on one line.
  EXPECT_EQ(RunTorch("x", [] { throw std::runtime_error("first\nsecond\n"); }).message(), "x: first second");
}

TEST(RunTorch, AModuleFromANewerPyTorchNamesThisLibTorchAndTheFix) {
  const absl::Status s = RunTorch("model.torchscript.module_bytes are not a TorchScript module", [] {
    throw std::runtime_error(
        "[enforce fail at inline_container.cc:165] . Attempted to read a PyTorch file with version 99, but the "
        "maximum supported version for reading is 10. The version of your PyTorch installation may be too old, "
        "please upgrade PyTorch to latest version to mitigate this issue.");
  });
  EXPECT_TRUE(Contains(s, "saved by a newer PyTorch (file format version 99)")) << s;
  EXPECT_TRUE(Contains(s, std::string("LibTorch ") + TORCHSCAN_LIBTORCH_VERSION + " reads (up to version 10)")) << s;
  EXPECT_TRUE(Contains(s, "TORCHSCAN_LIBTORCH")) << s;
  EXPECT_FALSE(Contains(s, "please upgrade PyTorch")) << s;
  const absl::Status op = RunTorch("load", [] { throw std::runtime_error("Unknown builtin op: aten::new_thing."); });
  EXPECT_TRUE(Contains(op, std::string("this daemon's LibTorch is ") + TORCHSCAN_LIBTORCH_VERSION)) << op;
}

// No "please report a bug to PyTorch" reaches a user: an internal assert is told as LibTorch
// not being able to use the input, with its check and detail.
TEST(RunTorch, AnInternalAssertIsToldAsAnInputLibTorchCannotUse) {
  const absl::Status s = RunTorch("inputs[0].tensor_bytes", [] {
    throw c10::Error(
        "isGenericDict() INTERNAL ASSERT FAILED at \"../aten/src/ATen/core/ivalue_inl.h\":1931, please report a "
        "bug to PyTorch. Expected GenericDict but got Object");
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "inputs[0].tensor_bytes: LibTorch could not use it (its check isGenericDict() failed: Expected "
            "GenericDict but got Object)");
}

TEST(RunTorch, OtherExceptions) {
  const absl::Status s = RunTorch("script", [] { throw std::runtime_error("AssertionError: wrong shape"); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(s, "AssertionError: wrong shape"));
  EXPECT_EQ(RunTorch("odd", [] { throw 42; }).code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace torchscan::workloads
