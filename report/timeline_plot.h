// An inline SVG bar chart of a job's phase timeline (proto Timeline): one bar per phase span
// on a horizontal time axis from 0 to the last span's end, one lane per kind of phase (queue,
// worker start, LibTorch load, build, warm-up, timing, profile, memory, rss, check, write,
// other), each kind in its own colour and named at the left of its lane, so a reader sees
// where the job's time went. Candidate phases ("... candidate") are paler than the baseline's,
// and a thin white edge keeps back-to-back rounds apart (bars of 4 px or more; every bar is
// at least 2 px wide, so the shortest phases stay visible). Each bar carries a <title> with its
// phase, start and duration.
// Offline: no script, no external resource, no style attribute (CSP-safe).
//
// Size is bounded: at most kMaxTimelineBars bars (the first spans; the <desc> says how many
// were left out). Spans whose start or end is not finite, or that end before they start, are
// not drawn. Every coordinate written is finite (a timeline of zero length still gets an axis
// of one second). All text is HTML-escaped. Returns "" when no span can be drawn.
#pragma once

#include <string>
#include <string_view>

#include "proto/report.pb.h"

namespace torchscan::report {

inline constexpr int kMaxTimelineBars = 400;

// The lane a phase name falls in: its kind, from the name's leading words ("timing baseline"
// -> "timing", "write result" -> "write", "LibTorch load" -> "libtorch"); "other" when unknown.
std::string PhaseKind(std::string_view phase);

// A complete <svg> element (role="img", with <title> and <desc>), or "". `id` prefixes the
// element ids, so several charts can share a page; it must be unique there and is escaped.
std::string TimelineSvg(const v1::Timeline& timeline, std::string_view id);

}  // namespace torchscan::report
