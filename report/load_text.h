// One short sentence for the load seen while a run was timed (Timing.load,
// proto/report.proto), shared by the renderers. No escaping: callers escape for their format.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan::report {

// "others used 38% of CPUs 0-1; 1-min load 0.50 to 0.70" (the share rounded to a whole
// percent, "<1%" for a non-zero share below it); "" when nothing was sampled (no load, or
// interval_s 0).
std::string DescribeTimingLoad(const v1::Timing& timing);

}  // namespace torchscan::report
