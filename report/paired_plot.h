// An inline SVG strip of a comparison's paired rounds (proto PairedEvidence): one dot per
// round at its ratio after/before on a horizontal log ratio axis (0.5x and 2x equally far
// from 1; every tick positive), the Hodges-Lehmann interval as a
// band, the median ratio as a tick and a dashed line at 1 (no change), so a reader sees at a
// glance whether the interval clears 1. Offline: no script, no external resource.
//
// Size is bounded: at most kMaxPairedDots dots (the first rounds; the <desc> says how many
// were left out), all in one <path>. Ratios that are not finite or not > 0 are not drawn.
// Every coordinate written is finite; the axis always includes 1 and the interval. All text is
// HTML-escaped. Returns "" when there is no ratio to draw (single pass, withheld, too old).
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan::report {

inline constexpr int kMaxPairedDots = 400;

// A complete <svg> element (role="img", with <title> and <desc>), or "".
std::string PairedRatioSvg(const v1::PairedEvidence& paired);

}  // namespace torchscan::report
