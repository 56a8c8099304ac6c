#include "workloads/flop_formulas.h"

#include <gtest/gtest.h>

#include "workloads/operator_classes.h"

namespace torchscan::workloads {
namespace {

using A = OpArg;

TEST(FlopFormulas, MatrixProductsCountTwoPerMultiplyAdd) {
  EXPECT_EQ(OperatorFlops("aten::mm", {A::Tensor({32, 128}), A::Tensor({128, 64})}), 2 * 32 * 128 * 64);
  // addmm(bias, a, b): the bias addition is not counted.
  EXPECT_EQ(OperatorFlops("aten::addmm", {A::Tensor({128}), A::Tensor({32, 128}), A::Tensor({128, 128})}),
            2 * 32 * 128 * 128);
  EXPECT_EQ(OperatorFlops("aten::bmm", {A::Tensor({8, 8, 64}), A::Tensor({8, 64, 8})}), 2 * 8 * 8 * 64 * 8);
  EXPECT_EQ(OperatorFlops("aten::baddbmm", {A::Tensor({8, 8, 8}), A::Tensor({8, 8, 64}), A::Tensor({8, 64, 8})}),
            2 * 8 * 8 * 64 * 8);
  EXPECT_EQ(OperatorFlops("aten::dot", {A::Tensor({100}), A::Tensor({100})}), 200);
  EXPECT_EQ(OperatorFlops("aten::mv", {A::Tensor({10, 20}), A::Tensor({20})}), 400);
  EXPECT_EQ(OperatorFlops("aten::addmv", {A::Tensor({10}), A::Tensor({10, 20}), A::Tensor({20})}), 400);
}

TEST(FlopFormulas, MatmulPromotesVectorsAndBroadcastsBatches) {
  EXPECT_EQ(OperatorFlops("aten::matmul", {A::Tensor({128}), A::Tensor({128})}), 256);
  EXPECT_EQ(OperatorFlops("aten::matmul", {A::Tensor({128}), A::Tensor({128, 64})}), 2 * 128 * 64);
  EXPECT_EQ(OperatorFlops("aten::matmul", {A::Tensor({64, 128}), A::Tensor({128})}), 2 * 64 * 128);
  EXPECT_EQ(OperatorFlops("aten::matmul", {A::Tensor({4, 8, 128}), A::Tensor({128, 128})}), 2 * 32 * 128 * 128);
  // [4, 2, 8, 64] x [4, 2, 64, 8]: 8 batches of 8x64 by 64x8.
  EXPECT_EQ(OperatorFlops("aten::matmul", {A::Tensor({4, 2, 8, 64}), A::Tensor({4, 2, 64, 8})}),
            2 * 4 * 2 * 8 * 64 * 8);
  // Broadcast [3, 1, 5, 6] x [7, 6, 2] -> batch [3, 7].
  EXPECT_EQ(OperatorFlops("aten::matmul", {A::Tensor({3, 1, 5, 6}), A::Tensor({7, 6, 2})}), 2 * 3 * 7 * 5 * 6 * 2);
  EXPECT_EQ(OperatorFlops("aten::matmul", {A::Tensor({4, 5}), A::Tensor({6, 7})}), std::nullopt);
}

TEST(FlopFormulas, LinearFlattensLeadingDimensions) {
  EXPECT_EQ(OperatorFlops("aten::linear", {A::Tensor({4, 8, 128}), A::Tensor({512, 128}), A::Tensor({512})}),
            2 * 32 * 128 * 512);
  EXPECT_EQ(OperatorFlops("aten::linear", {A::Tensor({128}), A::Tensor({16, 128}), A::None()}), 2 * 128 * 16);
  EXPECT_EQ(OperatorFlops("aten::linear", {A::Tensor({4, 127}), A::Tensor({16, 128}), A::None()}), std::nullopt);
}

TEST(FlopFormulas, Conv2dUsesStridePaddingDilationGroups) {
  // ResNet stem: [4, 3, 32, 32] * [64, 3, 7, 7], stride 2, padding 3 -> 16x16 outputs.
  EXPECT_EQ(OperatorFlops("aten::conv2d", {A::Tensor({4, 3, 32, 32}), A::Tensor({64, 3, 7, 7}), A::None(),
                                           A::IntList({2, 2}), A::IntList({3, 3}), A::IntList({1, 1}), A::Int(1)}),
            2LL * 4 * 64 * 16 * 16 * 3 * 7 * 7);
  // Depthwise (groups 32), dilation 2, padding 2, stride 1 on 10x10: out 10x10, 1 input channel per group.
  EXPECT_EQ(OperatorFlops("aten::conv2d", {A::Tensor({1, 32, 10, 10}), A::Tensor({32, 1, 3, 3}), A::None(),
                                           A::IntList({1}), A::IntList({2}), A::IntList({2}), A::Int(32)}),
            2LL * 32 * 10 * 10 * 1 * 9);
  // Unbatched input [C, H, W] counts one image.
  EXPECT_EQ(OperatorFlops("aten::conv2d", {A::Tensor({3, 8, 8}), A::Tensor({8, 3, 3, 3}), A::None(), A::IntList({2, 2}),
                                           A::IntList({1, 1}), A::IntList({1, 1}), A::Int(1)}),
            2LL * 8 * 4 * 4 * 3 * 9);
  // Groups that do not divide the channels do not fit.
  EXPECT_EQ(OperatorFlops("aten::conv2d", {A::Tensor({1, 6, 8, 8}), A::Tensor({8, 4, 3, 3}), A::None(),
                                           A::IntList({1, 1}), A::IntList({1, 1}), A::IntList({1, 1}), A::Int(2)}),
            std::nullopt);
}

TEST(FlopFormulas, StringPaddingSameAndValid) {
  const std::vector<OpArg> same = {A::Tensor({2, 4, 9, 9}), A::Tensor({6, 4, 3, 3}), A::None(), A::IntList({1, 1}),
                                   A::String("same"),       A::IntList({1, 1}),      A::Int(1)};
  EXPECT_EQ(OperatorFlops("aten::conv2d", same), 2LL * 2 * 6 * 81 * 4 * 9);
  const std::vector<OpArg> valid = {A::Tensor({2, 4, 9, 9}), A::Tensor({6, 4, 3, 3}), A::None(), A::IntList({1, 1}),
                                    A::String("valid"),      A::IntList({1, 1}),      A::Int(1)};
  EXPECT_EQ(OperatorFlops("aten::_convolution_mode", valid), 2LL * 2 * 6 * 49 * 4 * 9);
}

TEST(FlopFormulas, ConvolutionOfAnyDimensionAndTransposed) {
  // conv1d: [2, 4, 20] * [8, 4, 5], stride 3 -> out (20 - 5) / 3 + 1 = 6.
  EXPECT_EQ(OperatorFlops("aten::conv1d", {A::Tensor({2, 4, 20}), A::Tensor({8, 4, 5}), A::None(), A::IntList({3}),
                                           A::IntList({0}), A::IntList({1}), A::Int(1)}),
            2LL * 2 * 8 * 6 * 4 * 5);
  // conv3d: [1, 2, 4, 4, 4] * [3, 2, 3, 3, 3], padding 1 -> 4x4x4.
  EXPECT_EQ(
      OperatorFlops("aten::conv3d", {A::Tensor({1, 2, 4, 4, 4}), A::Tensor({3, 2, 3, 3, 3}), A::None(),
                                     A::IntList({1, 1, 1}), A::IntList({1, 1, 1}), A::IntList({1, 1, 1}), A::Int(1)}),
      2LL * 3 * 64 * 2 * 27);
  // _convolution, transposed: weight [C_in=4, C_out/groups=3, 2, 2] on [1, 4, 5, 5].
  EXPECT_EQ(OperatorFlops("aten::_convolution",
                          {A::Tensor({1, 4, 5, 5}), A::Tensor({4, 3, 2, 2}), A::None(), A::IntList({2, 2}),
                           A::IntList({0, 0}), A::IntList({1, 1}), A::Bool(true), A::IntList({0, 0}), A::Int(1),
                           A::Bool(false), A::Bool(false), A::Bool(true), A::Bool(true)}),
            2LL * 4 * 25 * 3 * 4);
  EXPECT_EQ(OperatorFlops("aten::conv_transpose2d",
                          {A::Tensor({1, 4, 5, 5}), A::Tensor({4, 3, 2, 2}), A::None(), A::IntList({2, 2}),
                           A::IntList({0, 0}), A::IntList({0, 0}), A::Int(1), A::IntList({1, 1})}),
            2LL * 4 * 25 * 3 * 4);
  // mkldnn_convolution(input, weight, bias, padding, stride, dilation, groups).
  EXPECT_EQ(OperatorFlops("aten::mkldnn_convolution",
                          {A::Tensor({4, 3, 32, 32}), A::Tensor({64, 3, 7, 7}), A::None(), A::IntList({3, 3}),
                           A::IntList({2, 2}), A::IntList({1, 1}), A::Int(1)}),
            2LL * 4 * 64 * 16 * 16 * 3 * 7 * 7);
}

TEST(FlopFormulas, FrozenGraphOperatorsUseTheirOwnArgumentOrder) {
  // prim::mkldnn_convolution(input, weight, bias, stride, padding, dilation, groups): conv2d's
  // order, unlike aten::mkldnn_convolution. Stride 2, padding 3 on 32x32 -> 16x16.
  EXPECT_EQ(OperatorFlops("prim::mkldnn_convolution",
                          {A::Tensor({4, 3, 32, 32}), A::Tensor({64, 3, 7, 7}), A::None(), A::IntList({2, 2}),
                           A::IntList({3, 3}), A::IntList({1, 1}), A::Int(1)}),
            2LL * 4 * 64 * 16 * 16 * 3 * 7 * 7);
  EXPECT_EQ(ClassifyOperator("prim::mkldnn_convolution"), FlopClass::kFormula);
  EXPECT_EQ(OperatorFlops("aten::mkldnn_linear", {A::Tensor({2, 8, 14}), A::Tensor({5, 14}), A::Tensor({5})}),
            2 * 16 * 14 * 5);
}

TEST(FlopFormulas, OutputShapesOfFormulaOperators) {
  const auto shape = [](std::string_view name, const std::vector<OpArg>& args) {
    return FormulaOutputShape(name, args).value_or(std::vector<int64_t>{-1});
  };
  using S = std::vector<int64_t>;
  EXPECT_EQ(shape("aten::mm", {A::Tensor({32, 128}), A::Tensor({128, 64})}), (S{32, 64}));
  EXPECT_EQ(shape("aten::addmm", {A::Tensor({64}), A::Tensor({32, 128}), A::Tensor({128, 64})}), (S{32, 64}));
  EXPECT_EQ(shape("aten::bmm", {A::Tensor({8, 4, 64}), A::Tensor({8, 64, 2})}), (S{8, 4, 2}));
  EXPECT_EQ(shape("aten::baddbmm", {A::Tensor({1}), A::Tensor({8, 4, 64}), A::Tensor({8, 64, 2})}), (S{8, 4, 2}));
  EXPECT_EQ(shape("aten::addbmm", {A::Tensor({1}), A::Tensor({8, 4, 64}), A::Tensor({8, 64, 2})}), (S{4, 2}));
  EXPECT_EQ(shape("aten::mv", {A::Tensor({10, 20}), A::Tensor({20})}), (S{10}));
  EXPECT_EQ(shape("aten::dot", {A::Tensor({20}), A::Tensor({20})}), (S{}));
  EXPECT_EQ(shape("aten::linear", {A::Tensor({4, 8, 128}), A::Tensor({512, 128}), A::None()}), (S{4, 8, 512}));
  EXPECT_EQ(shape("aten::linear", {A::Tensor({4, 128}), A::Tensor({128}), A::None()}), (S{4}));
  EXPECT_EQ(shape("aten::matmul", {A::Tensor({3, 1, 5, 6}), A::Tensor({7, 6, 2})}), (S{3, 7, 5, 2}));
  EXPECT_EQ(shape("aten::matmul", {A::Tensor({128}), A::Tensor({128, 64})}), (S{64}));
  EXPECT_EQ(shape("aten::matmul", {A::Tensor({4, 8, 128}), A::Tensor({128})}), (S{4, 8}));
  EXPECT_EQ(shape("aten::matmul", {A::Tensor({128}), A::Tensor({128})}), (S{}));
  // conv2d stride 2 padding 3 on 32x32 with 7x7 -> 16x16; unbatched input keeps no batch dim.
  EXPECT_EQ(shape("aten::conv2d", {A::Tensor({4, 3, 32, 32}), A::Tensor({64, 3, 7, 7}), A::None(), A::IntList({2, 2}),
                                   A::IntList({3, 3}), A::IntList({1, 1}), A::Int(1)}),
            (S{4, 64, 16, 16}));
  EXPECT_EQ(shape("aten::conv2d", {A::Tensor({3, 8, 8}), A::Tensor({8, 3, 3, 3}), A::None(), A::IntList({2, 2}),
                                   A::IntList({1, 1}), A::IntList({1, 1}), A::Int(1)}),
            (S{8, 4, 4}));
  EXPECT_EQ(shape("aten::conv2d", {A::Tensor({2, 4, 9, 9}), A::Tensor({6, 4, 3, 3}), A::None(), A::IntList({1, 1}),
                                   A::String("same"), A::IntList({1, 1}), A::Int(1)}),
            (S{2, 6, 9, 9}));
  // conv_transpose2d [1, 4, 5, 5] * [4, 3, 2, 2], groups 2, stride 2, padding 1, output_padding 1:
  // (5 - 1) * 2 - 2 + 1 * (2 - 1) + 1 + 1 = 9, C_out = 3 * 2.
  EXPECT_EQ(
      shape("aten::conv_transpose2d", {A::Tensor({1, 4, 5, 5}), A::Tensor({4, 3, 2, 2}), A::None(), A::IntList({2, 2}),
                                       A::IntList({1, 1}), A::IntList({1, 1}), A::Int(2), A::IntList({1, 1})}),
      (S{1, 6, 9, 9}));
  EXPECT_EQ(
      shape("aten::_convolution", {A::Tensor({1, 4, 5, 5}), A::Tensor({4, 3, 2, 2}), A::None(), A::IntList({2, 2}),
                                   A::IntList({0, 0}), A::IntList({1, 1}), A::Bool(true), A::IntList({0, 0}), A::Int(1),
                                   A::Bool(false), A::Bool(false), A::Bool(true), A::Bool(true)}),
      (S{1, 3, 10, 10}));
  EXPECT_EQ(shape("prim::mkldnn_convolution", {A::Tensor({1, 16, 8, 8}), A::Tensor({32, 16, 3, 3}), A::None(),
                                               A::IntList({1, 1}), A::IntList({1, 1}), A::IntList({1, 1}), A::Int(1)}),
            (S{1, 32, 8, 8}));
  EXPECT_EQ(FormulaOutputShape("aten::mm", {A::Tensor({4, 5}), A::Tensor({6, 7})}), std::nullopt);
  EXPECT_EQ(FormulaOutputShape("aten::relu", {A::Tensor({4, 5})}), std::nullopt);
}

TEST(FlopFormulas, MissingOrMalformedArgumentsGiveNoCount) {
  EXPECT_EQ(OperatorFlops("aten::mm", {A::Tensor({2, 3})}), std::nullopt);
  EXPECT_EQ(OperatorFlops("aten::mm", {A::None(), A::Tensor({2, 3})}), std::nullopt);
  EXPECT_EQ(OperatorFlops("aten::relu", {A::Tensor({2, 3})}), std::nullopt);
  EXPECT_EQ(OperatorFlops("aten::conv2d", {A::Tensor({1, 3, 2, 2}), A::Tensor({8, 3, 7, 7}), A::None(),
                                           A::IntList({1, 1}), A::IntList({0, 0}), A::IntList({1, 1}), A::Int(1)}),
            std::nullopt);  // kernel larger than the padded input: no output positions
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(OperatorFlops("aten::mm", {A::Tensor({big, big}), A::Tensor({big, big})}), std::nullopt);  // overflow
}

}  // namespace
}  // namespace torchscan::workloads
