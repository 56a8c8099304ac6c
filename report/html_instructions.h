// The HTML report's "Instructions" section (html_renderer.h): for a comparison, the diff's
// headline and a table of the functions whose self counts moved most; for every run, its count
// and its top functions by inclusive count; and the limits of counts. Nothing when no run was
// counted. Reads only what was saved.
#pragma once

#include <string>
#include <vector>

#include "proto/report.pb.h"
#include "report/evidence_view.h"

namespace torchscan::report {

void InstructionsSection(const std::vector<RunView>& runs, const v1::Comparison* comparison, std::string* out);

}  // namespace torchscan::report
