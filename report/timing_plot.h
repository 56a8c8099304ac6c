// An inline SVG picture of the per-call time (duration / calls) of every timing block: one
// panel per run, side by side, sharing the y axis (per-call time) so before and after can be
// compared by eye; x is the block's position in measurement order. Each panel marks the
// run's saved median (a line) and IQR (a band from q1 to q3) from its timing summary.
//
// Size is bounded whatever the block count: up to kMaxColumns blocks are drawn as one dot
// each; more are grouped into kMaxColumns columns of consecutive blocks, each drawn as one
// min-max line (so outliers stay visible). All dots or lines of a panel form one <path>, so a
// panel has a fixed number of elements and O(kMaxColumns) path commands.
//
// Outliers never flatten the picture: the y axis covers the blocks up to the highest run's
// far-out fence (q3 + 3 IQR, at least 1.25 times its median); slower blocks are drawn on the
// top edge under a red triangle, and the panel says how many and the slowest one's time. The
// median's value sits in the panel's title row, right-aligned, never on the data.
//
// Blocks whose per-call time is not finite (calls <= 0, NaN duration) are not drawn; the
// panel caption counts them. A run without drawable blocks gets an empty panel saying so.
// Every coordinate written is finite. The y axis starts at 0 unless the data sit far above
// it, in which case the axis label says "axis not from 0". Panel titles longer than their
// panel are cut with an ellipsis (the <desc> keeps them whole). All text is HTML-escaped.
#pragma once

#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan::report {

inline constexpr int kMaxColumns = 400;

struct PlotRun {
  std::string label;         // e.g. "before: baseline"
  const v1::Timing* timing;  // blocks and summary to draw
};

// A complete <svg> element (role="img", with <title> and <desc>). Empty `runs`: "".
std::string TimingPlotSvg(const std::vector<PlotRun>& runs);

}  // namespace torchscan::report
