#include "workloads/operator_classes.h"

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

TEST(OperatorClasses, ClassifiesOperators) {
  EXPECT_EQ(ClassifyOperator("aten::addmm"), FlopClass::kFormula);
  EXPECT_EQ(ClassifyOperator("aten::_convolution"), FlopClass::kFormula);
  EXPECT_EQ(ClassifyOperator("aten::relu_"), FlopClass::kNotCounted);
  EXPECT_EQ(ClassifyOperator("aten::native_layer_norm"), FlopClass::kNotCounted);
  EXPECT_EQ(ClassifyOperator("aten::view"), FlopClass::kNotCounted);
  EXPECT_EQ(ClassifyOperator("aten::inverse"), FlopClass::kUnknown);
  EXPECT_EQ(ClassifyOperator("mylib::custom_op"), FlopClass::kUnknown);
}

}  // namespace
}  // namespace torchscan::workloads
