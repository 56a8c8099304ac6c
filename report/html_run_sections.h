// The parts of the HTML page that describe the runs themselves, one column per run (one for a
// report, before and after for a comparison). report/html_renderer.cc assembles the page.
// Each function appends one <section>; every string from the evidence is escaped. None of
// them shows a difference between runs.
#pragma once

#include <string>
#include <vector>

#include "report/evidence_view.h"

namespace torchscan::report {

// Median, IQR, mean, min/max, throughput, blocks and calls, the per-call SVG and warnings.
void TimingSection(const std::vector<RunView>& runs, std::string* out);

// The per-call SVG of every run (report/timing_plot.h) with its caption, in a <figure>; when no
// run has a block (a comparison whose check failed before timing), a sentence saying so.
void AppendTimingFigure(const std::vector<RunView>& runs, std::string* out);

// Appended scoped metrics (totals), each with method and scope, never summed.
void MetricsSection(const std::vector<RunView>& runs, std::string* out);

// The optional operator profile, ordered by self time, with FLOPs and their diagnostics.
// Appends nothing when no run has a profile.
void ProfileSection(const std::vector<RunView>& runs, std::string* out);

// Environment, settings, input metadata and the workload map; differing rows are marked.
void MetadataSection(const std::vector<RunView>& runs, std::string* out);

// Every raw timing block, one collapsed <details id="raw-blocks-ROLE"> per run.
void RawBlocksSection(const std::vector<RunView>& runs, std::string* out);

// Shared cell builders: an escaped text cell, and a right-aligned number cell.
std::string Td(std::string_view text);
std::string TdNum(std::string_view text);

}  // namespace torchscan::report
