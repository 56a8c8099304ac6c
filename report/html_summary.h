// The top of an HTML rendering, shared by the full page (report/html_renderer.h) and the
// notebook view (report/notebook_renderer.h), so that both say the same thing in the same words:
// the title, then for a comparison the verdict sentence, the banners (a failed check, runs not
// comparable), one card per field of the sentence (report/verdict_sentence.h VerdictFields),
// the timing plan; for a report its cards; the noise floor when the evidence has one. Also the
// deltas table and the paired rounds. Every string from the evidence is HTML-escaped; withheld
// numbers are never shown (report/renderer.h).
#pragma once

#include <string>
#include <vector>

#include "report/evidence_view.h"

namespace torchscan::report {

// Header, sentence, banners, cards, plan and noise floor.
void AppendSummary(const Evidence& evidence, const std::vector<RunView>& runs, std::string* out);

// The deltas as a table (known, and unknown with the reason), or the paragraph saying why they
// are withheld and which metrics there were.
void AppendDeltasTable(const v1::Comparison& comparison, std::string* out);

// The paired rounds beside the Mann-Whitney evidence (never the label): the claim, its
// interval and what it resolves, and the per-round ratios drawn (report/paired_plot.h).
void AppendPairedRounds(const v1::PairedEvidence& paired, std::string* out);

}  // namespace torchscan::report
