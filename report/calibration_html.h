// A calibration (proto/report.proto Calibration) as one offline HTML page, written by
// `calibrate` beside calibration.json: the noise floor's sentence, what a compare at its
// defaults is expected to do here (the forecast), the A/A pairs' figures, and each pair's
// label, claim and median ratio. Only reads what was saved.
#pragma once

#include <string>

#include "proto/report.pb.h"

namespace torchscan::report {

std::string RenderCalibrationHtml(const v1::Calibration& calibration);

}  // namespace torchscan::report
