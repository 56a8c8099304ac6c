#include "report/svg_number.h"

#include "absl/strings/str_format.h"

namespace torchscan::report {

std::string SvgNumber(double value) { return absl::StrFormat("%.1f", value); }

}  // namespace torchscan::report
