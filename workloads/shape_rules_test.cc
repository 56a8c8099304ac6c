#include "workloads/shape_rules.h"

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

using A = OpArg;
using S = std::vector<int64_t>;

// The single output's shape, or {-1} when unknown.
S One(std::string_view kind, const std::vector<OpArg>& args) {
  const auto shapes = OutputShapes(kind, args);
  if (!shapes) return {-1};
  EXPECT_EQ(shapes->size(), 1u) << kind;
  return shapes->empty() ? S{-2} : shapes->front();
}

TEST(ShapeRules, OptimizedCnnChainFromInputToLinear) {
  // The graph optimize_for_inference makes of Conv2d, ReLU, Conv2d, flatten, Linear.
  EXPECT_EQ(One("aten::to_mkldnn", {A::Tensor({4, 3, 16, 16}), A::None()}), (S{4, 3, 16, 16}));
  EXPECT_EQ(One("prim::mkldnn_convolution", {A::Tensor({4, 3, 16, 16}), A::Tensor({16, 3, 3, 3}), A::Tensor({16}),
                                             A::IntList({1, 1}), A::IntList({1, 1}), A::IntList({1, 1}), A::Int(1)}),
            (S{4, 16, 16, 16}));
  EXPECT_EQ(One("aten::relu_", {A::Tensor({4, 16, 16, 16})}), (S{4, 16, 16, 16}));
  EXPECT_EQ(One("prim::MKLDNNHardSwish_", {A::Tensor({4, 16, 16, 16})}), (S{4, 16, 16, 16}));
  EXPECT_EQ(One("aten::to_dense", {A::Tensor({4, 32, 16, 16}), A::None()}), (S{4, 32, 16, 16}));
  EXPECT_EQ(One("aten::flatten", {A::Tensor({4, 32, 16, 16}), A::Int(1), A::Int(-1)}), (S{4, 8192}));
  EXPECT_EQ(One("aten::matmul", {A::Tensor({4, 8192}), A::Tensor({8192, 10})}), (S{4, 10}));
  EXPECT_EQ(One("aten::add", {A::Tensor({4, 10}), A::Tensor({10}), A::Int(1)}), (S{4, 10}));
}

TEST(ShapeRules, BinaryOperatorsBroadcastOrTakeScalars) {
  EXPECT_EQ(One("aten::mul", {A::Tensor({3, 1, 5}), A::Tensor({4, 1})}), (S{3, 4, 5}));
  EXPECT_EQ(One("aten::mul", {A::Tensor({3, 5}), A::Other()}), (S{3, 5}));  // a float scalar
  EXPECT_EQ(One("aten::add", {A::Tensor({3, 5}), A::Int(2), A::Int(1)}), (S{3, 5}));
  EXPECT_EQ(One("aten::add", {A::Tensor({3, 5}), A::Tensor({4})}), (S{-1}));  // does not broadcast
  const auto both = OutputShapes("prim::BroadcastMKLDNNTensors", {A::Tensor({2, 8, 4, 4}), A::Tensor({8, 1, 1})});
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(*both, (std::vector<S>{{2, 8, 4, 4}, {2, 8, 4, 4}}));
  EXPECT_EQ(One("aten::add_", {A::Tensor({2, 8}), A::Tensor({8}), A::Int(1)}), (S{2, 8}));
}

TEST(ShapeRules, LayoutOperators) {
  EXPECT_EQ(One("aten::flatten", {A::Tensor({2, 3, 4, 5}), A::Int(1), A::Int(2)}), (S{2, 12, 5}));
  EXPECT_EQ(One("aten::flatten", {A::Tensor({}), A::Int(0), A::Int(-1)}), (S{1}));
  EXPECT_EQ(One("aten::reshape", {A::Tensor({2, 3, 4}), A::IntList({-1, 4})}), (S{6, 4}));
  EXPECT_EQ(One("aten::view", {A::Tensor({2, 3, 4}), A::IntList({4, 6})}), (S{4, 6}));
  EXPECT_EQ(One("aten::view", {A::Tensor({2, 3, 4}), A::IntList({5, -1})}), (S{-1}));  // 24 is not a multiple of 5
  EXPECT_EQ(One("aten::view", {A::Tensor({2, 3, 4}), A::IntList({-1, -1})}), (S{-1}));
  EXPECT_EQ(One("aten::permute", {A::Tensor({2, 3, 4}), A::IntList({2, 0, 1})}), (S{4, 2, 3}));
  EXPECT_EQ(One("aten::permute", {A::Tensor({2, 3, 4}), A::IntList({0, 0, 1})}), (S{-1}));
  EXPECT_EQ(One("aten::transpose", {A::Tensor({2, 3, 4}), A::Int(-1), A::Int(0)}), (S{4, 3, 2}));
  EXPECT_EQ(One("aten::t", {A::Tensor({2, 3})}), (S{3, 2}));
  EXPECT_EQ(One("aten::unsqueeze", {A::Tensor({2, 3}), A::Int(-1)}), (S{2, 3, 1}));
  EXPECT_EQ(One("aten::squeeze", {A::Tensor({2, 1, 3, 1})}), (S{2, 3}));
  EXPECT_EQ(One("aten::squeeze", {A::Tensor({2, 1, 3}), A::Int(1)}), (S{2, 3}));
  EXPECT_EQ(One("aten::squeeze", {A::Tensor({2, 1, 3}), A::Int(0)}), (S{2, 1, 3}));
  EXPECT_EQ(One("aten::mean", {A::Tensor({2, 8, 4, 4}), A::IntList({2, 3}), A::Bool(true), A::None()}),
            (S{2, 8, 1, 1}));
  EXPECT_EQ(One("aten::sum", {A::Tensor({2, 8, 4}), A::IntList({-1}), A::Bool(false), A::None()}), (S{2, 8}));
  EXPECT_EQ(One("aten::sum", {A::Tensor({2, 8, 4}), A::None()}), (S{}));
}

TEST(ShapeRules, Pooling) {
  // max_pool2d(kernel 3, stride 2, padding 1) on 32x32 -> 16x16 (ResNet's stem pool).
  EXPECT_EQ(One("aten::max_pool2d", {A::Tensor({4, 64, 32, 32}), A::IntList({3, 3}), A::IntList({2, 2}),
                                     A::IntList({1, 1}), A::IntList({1, 1}), A::Bool(false)}),
            (S{4, 64, 16, 16}));
  // An empty stride means the kernel; kernel 2 on 7: floor 3, ceil_mode 4.
  EXPECT_EQ(One("aten::max_pool2d", {A::Tensor({1, 8, 7, 7}), A::IntList({2}), A::IntList({}), A::IntList({0}),
                                     A::IntList({1}), A::Bool(false)}),
            (S{1, 8, 3, 3}));
  EXPECT_EQ(One("aten::mkldnn_max_pool2d", {A::Tensor({1, 8, 7, 7}), A::IntList({2}), A::IntList({}), A::IntList({0}),
                                            A::IntList({1}), A::Bool(true)}),
            (S{1, 8, 4, 4}));
  // avg_pool2d(self, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override).
  EXPECT_EQ(One("aten::avg_pool2d", {A::Tensor({1, 8, 8, 8}), A::IntList({2, 2}), A::IntList({2, 2}),
                                     A::IntList({0, 0}), A::Bool(false), A::Bool(true), A::None()}),
            (S{1, 8, 4, 4}));
  EXPECT_EQ(One("aten::adaptive_avg_pool2d", {A::Tensor({4, 512, 1, 1}), A::IntList({1, 1})}), (S{4, 512, 1, 1}));
  EXPECT_EQ(One("aten::adaptive_avg_pool2d", {A::Tensor({4, 8, 5, 5}), A::IntList({2})}), (S{4, 8, 2, 2}));
  const auto max = OutputShapes("aten::adaptive_max_pool2d", {A::Tensor({4, 8, 5, 5}), A::IntList({1, 1})});
  ASSERT_TRUE(max.has_value());
  EXPECT_EQ(max->size(), 2u);  // values and indices
  EXPECT_EQ(One("aten::max_pool2d", {A::Tensor({1, 8, 2, 2}), A::IntList({3, 3}), A::IntList({1, 1}),
                                     A::IntList({0, 0}), A::IntList({1, 1}), A::Bool(false)}),
            (S{-1}));  // the window does not fit
}

TEST(ShapeRules, UnknownOperatorsAndArgumentsGiveNoShape) {
  EXPECT_EQ(OutputShapes("aten::repeat", {A::Tensor({2, 3}), A::IntList({2, 1})}), std::nullopt);
  EXPECT_EQ(OutputShapes("aten::relu", {A::Other()}), std::nullopt);
  EXPECT_EQ(OutputShapes("aten::flatten", {A::Tensor({2, 3}), A::Int(2), A::Int(-1)}), std::nullopt);
  EXPECT_EQ(OutputShapes("aten::reshape", {A::Tensor({2, 3}), A::Other()}), std::nullopt);
  EXPECT_EQ(OutputShapes("aten::conv2d", {A::Tensor({1, 3, 2, 2}), A::Tensor({8, 3, 7, 7}), A::None(),
                                          A::IntList({1, 1}), A::IntList({0, 0}), A::IntList({1, 1}), A::Int(1)}),
            std::nullopt);
}

}  // namespace
}  // namespace torchscan::workloads
