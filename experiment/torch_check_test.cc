#include "experiment/torch_check.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/output_check.h"

namespace torchscan::experiment {
namespace {

// The guide's tolerance for its built-in examples.
CloseOptions Guide() {
  CloseOptions o;
  o.rtol = 1e-4;
  o.atol = 1e-5;
  return o;
}

std::string FailureOf(const c10::IValue& a, const c10::IValue& b, const CloseOptions& o = Guide()) {
  try {
    AssertClose(a, b, o);
  } catch (const AssertionError& e) {
    return e.what();
  }
  return "";
}

TEST(AssertClose, EqualWithinToleranceHasNoFailure) {
  const torch::Tensor a = torch::ones({4, 4});
  EXPECT_EQ(FailureOf(a, a + 5e-6), "");
  EXPECT_EQ(FailureOf(a * 1000, a * 1000 + 0.05), "");  // rtol 1e-4 of 1000 = 0.1
}

TEST(AssertClose, ValueMismatchCountsElementsAndNamesTheWorst) {
  torch::Tensor b = torch::zeros({8});
  b[5] = 0.5;
  const std::string failure = FailureOf(torch::zeros({8}), b);
  EXPECT_NE(failure.find("output: 1 of 8 elements differ"), std::string::npos) << failure;
  EXPECT_NE(failure.find("max abs diff 0.5 at flat index 5"), std::string::npos) << failure;
}

TEST(AssertClose, ShapeAndDtypeMismatchFail) {
  EXPECT_NE(FailureOf(torch::zeros({2, 3}), torch::zeros({3, 2})).find("shapes differ"), std::string::npos);
  EXPECT_NE(FailureOf(torch::zeros({2}), torch::zeros({2}, torch::kDouble)).find("dtypes differ"), std::string::npos);
}

TEST(AssertClose, NonFiniteFailsUnlessAllowed) {
  const torch::Tensor nan = torch::full({2}, std::numeric_limits<float>::quiet_NaN());
  EXPECT_NE(FailureOf(nan, nan).find("not all finite"), std::string::npos);
  CloseOptions lenient = Guide();
  lenient.require_finite = false;
  EXPECT_NE(FailureOf(nan, nan, lenient).find("differ"), std::string::npos);  // NaN is never close
}

TEST(AssertClose, NestedTuplesAndDictsNameThePath) {
  const c10::IValue a = c10::ivalue::Tuple::create({torch::zeros({2}), torch::zeros({3})});
  const c10::IValue b = c10::ivalue::Tuple::create({torch::zeros({2}), torch::ones({3})});
  EXPECT_NE(FailureOf(a, b).find("output[1]:"), std::string::npos) << FailureOf(a, b);
  EXPECT_EQ(FailureOf(a, a), "");
  c10::Dict<std::string, torch::Tensor> da, db;
  da.insert("pooled", torch::zeros({2}));
  db.insert("pooled", torch::ones({2}));
  EXPECT_NE(FailureOf(da, db).find("output[\"pooled\"]"), std::string::npos);
  const c10::IValue short_tuple = c10::ivalue::Tuple::create({torch::zeros({2})});
  EXPECT_NE(FailureOf(a, short_tuple).find("lengths differ: 2 (actual) vs 1 (expected)"), std::string::npos)
      << FailureOf(a, short_tuple);
}

// A key on one side only names the side that has it, whichever side that is.
TEST(AssertClose, AKeyOnOneSideOnlyNamesTheSideThatHasIt) {
  CloseOptions sides = Guide();
  sides.actual_name = "baseline";
  sides.expected_name = "candidate";
  c10::Dict<std::string, torch::Tensor> both, baseline_only;
  both.insert("logits", torch::zeros({2}));
  both.insert("hidden", torch::zeros({2}));
  baseline_only.insert("hidden", torch::zeros({2}));
  EXPECT_EQ(FailureOf(both, baseline_only, sides),
            "output: key \"logits\" is in the baseline's output, not the candidate's");
  EXPECT_EQ(FailureOf(baseline_only, both, sides),
            "output: key \"logits\" is in the candidate's output, not the baseline's");
  // Same size, different keys: still named, not a value mismatch.
  c10::Dict<std::string, torch::Tensor> other;
  other.insert("logits", torch::zeros({2}));
  EXPECT_EQ(FailureOf(other, baseline_only, sides),
            "output: key \"logits\" is in the baseline's output, not the candidate's");
  EXPECT_NE(FailureOf(torch::zeros({2}), torch::zeros({3}), sides).find("[2] (baseline) vs [3] (candidate)"),
            std::string::npos)
      << FailureOf(torch::zeros({2}), torch::zeros({3}), sides);
}

TEST(AssertClose, UsableAsAnOutputCheck) {
  const v1::OutputCheck passed = RunOutputCheck([] {
    AssertClose(torch::ones({2}), torch::ones({2}), Guide());
    return std::optional<bool>();
  });
  EXPECT_EQ(passed.status(), v1::OutputCheck::passed);
  const v1::OutputCheck failed = RunOutputCheck([] {
    AssertClose(torch::ones({2}), torch::zeros({2}), Guide());
    return std::optional<bool>();
  });
  EXPECT_EQ(failed.status(), v1::OutputCheck::failed);
  EXPECT_NE(failed.message().find("2 of 2 elements differ"), std::string::npos);
}

TEST(AssertClose, RefusesToRunWithoutAToleranceTheCallerChose) {
  const torch::Tensor a = torch::ones({2});
  EXPECT_THROW(AssertClose(a, a, CloseOptions()), std::invalid_argument);  // rtol/atol not given
  CloseOptions negative = Guide();
  negative.atol = -1;
  EXPECT_THROW(AssertClose(a, a, negative), std::invalid_argument);
  CloseOptions unknown_dtype = Guide();
  unknown_dtype.compare_dtype = "int8";
  EXPECT_THROW(AssertClose(a, a, unknown_dtype), std::invalid_argument);
}

TEST(AssertClose, ComparesAPrecisionChangeInTheCompareDType) {
  torch::manual_seed(0);
  const torch::Tensor baseline = torch::randn({64, 64});
  const torch::Tensor candidate = baseline.to(torch::kBFloat16);  // ~3 significant digits
  CloseOptions loose = Guide();
  loose.rtol = 1e-2;
  loose.atol = 1e-2;
  const std::string without = FailureOf(baseline, candidate, loose);
  EXPECT_NE(without.find("dtypes differ: Float (actual) vs BFloat16 (expected)"), std::string::npos) << without;
  EXPECT_NE(without.find("compare_dtype (torchscan-client --check-dtype float32)"), std::string::npos) << without;
  loose.compare_dtype = "float32";
  EXPECT_EQ(FailureOf(baseline, candidate, loose), "");
  CloseOptions tight = Guide();  // the cast does not hide bfloat16's rounding at rtol 1e-4
  tight.compare_dtype = "float32";
  EXPECT_NE(FailureOf(baseline, candidate, tight).find("elements differ beyond rtol=0.0001"), std::string::npos);
  EXPECT_EQ(DescribeCloseOptions(loose), "rtol=0.01, atol=0.01, compared as float32, all finite");
}

}  // namespace
}  // namespace torchscan::experiment
