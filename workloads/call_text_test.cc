#include "workloads/call_text.h"

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

TEST(CallText, ShapesAndDtypes) {
  EXPECT_EQ(ShapeText({32, 65}, "float32"), "[32, 65] float32");
  EXPECT_EQ(ShapeText({}, "int64"), "[] int64");
}

TEST(CallText, InputsAsMadeOnTheirDevice) {
  EXPECT_EQ(InputsText({{"x", {32, 65}, "float32"}, {"mask", {32, 65}, "int64"}}, "cpu"),
            "x [32, 65] float32, mask [32, 65] int64 on cpu");
}

TEST(CallText, OneForwardAsCalled) {
  EXPECT_EQ(CallText("forward", {{"x", {32, 65}, "float32"}}, "cpu"), "forward(x: Tensor[32, 65] float32) on cpu");
  EXPECT_EQ(CallText("encode", {{"a", {65}, "bfloat16"}, {"b", {}, "int64"}}, "cuda:0"),
            "encode(a: Tensor[65] bfloat16, b: Tensor[] int64) on cuda:0");
}

}  // namespace
}  // namespace torchscan::workloads
