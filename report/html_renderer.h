// The HTML page of a report or a comparison: one self-contained file (inline CSS and SVG; no
// scripts, fonts, styles or images from anywhere else), readable offline from disk.
//
// Top to bottom (the top shared with the notebook view: report/html_summary.h): the title; for
// a comparison the verdict sentence, a banner when the output check failed (red) or the runs
// are not comparable (amber), one card per field of the sentence (check, paired claim, label,
// compatibility), the timing plan; timing (median, IQR, throughput, blocks, warnings, an SVG of
// every block's per-call time); for a comparison the deltas (known, and unknown with reasons),
// the evidence (relative change, the label's rule, the Mann-Whitney p with what it means, the
// paired rounds), changed settings and mismatches; scoped
// metrics; the optional operator profile; hardware, inputs and settings; raw blocks in
// collapsed <details>; the phase timeline (phase, start, duration), when the evidence has
// one; the notes.
//
// When the check failed or the runs are not comparable, the page holds no delta, ratio,
// relative change, p-value or speed label (see report/renderer.h), and notes naming a label
// are left out and counted. Every string from the evidence is HTML-escaped.
#pragma once

#include "report/renderer.h"

namespace torchscan::report {

class HtmlRenderer : public Renderer {
 public:
  std::string Render(const Evidence& evidence) const override;
  std::string_view format() const override { return "html"; }
  std::string_view file_extension() const override { return "html"; }
};

}  // namespace torchscan::report
