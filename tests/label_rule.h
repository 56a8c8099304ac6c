// What an end-to-end test may assert about a real timing verdict while other tests load the
// machine: not which label (load can honestly turn "faster" into "within_variability"), but
// that the saved label is the one the guide's rule gives for the saved medians and IQRs.
#pragma once

#include <gtest/gtest.h>

#include "proto/report.pb.h"

namespace torchscan::e2e {

// Success when `c` has a label other than unavailable and it is the guide's rule over the
// saved summaries: |after.median - before.median| <= max(IQR) is within_variability, else
// faster (median went down) or slower. Failure says what was saved and what the rule gives.
::testing::AssertionResult LabelFollowsTheGuideRule(const v1::Comparison& c);

}  // namespace torchscan::e2e
