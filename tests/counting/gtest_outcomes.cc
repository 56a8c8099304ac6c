// One test of each outcome scripts/count_test_results.py must tell apart, for
// count_test_results_test.py, which runs this binary with --gtest_output=xml (one run per
// outcome, chosen with --gtest_filter) so that the counter reads what GoogleTest 1.12 writes.
// Not a test target: it fails on purpose.
#include <gtest/gtest.h>

namespace {

TEST(Outcomes, Passes) { EXPECT_EQ(1 + 1, 2); }

TEST(Outcomes, Fails) { EXPECT_EQ(1 + 1, 3) << "fails on purpose"; }

TEST(Outcomes, SkipsWithAReason) { GTEST_SKIP() << "needs a CUDA build and a visible GPU"; }

TEST(Outcomes, DISABLED_IsDisabled) {}

// GoogleTest 1.12 writes each test of this suite as skipped, with no reason and no failure
// anywhere in the XML; only the exit status says the set-up failed.
class BrokenSetUp : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { FAIL() << "set-up fails on purpose"; }
};

TEST_F(BrokenSetUp, First) {}

TEST_F(BrokenSetUp, Second) {}

}  // namespace
