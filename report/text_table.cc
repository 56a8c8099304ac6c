#include "report/text_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "report/escaping.h"

namespace torchscan::report {

std::string TextTable(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned,
                      const std::string& indent) {
  std::vector<size_t> width;
  for (const std::vector<std::string>& row : rows) {
    if (row.size() > width.size()) width.resize(row.size(), 0);
    for (size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], DisplayWidth(row[k]));
  }
  std::string out;
  for (const std::vector<std::string>& row : rows) {
    std::string line = indent;
    for (size_t k = 0; k < width.size(); ++k) {
      const std::string cell = k < row.size() ? row[k] : "";
      const bool right = k < right_aligned.size() && right_aligned[k];
      absl::StrAppend(&line, k == 0 ? "" : "  ", right ? PadLeft(cell, width[k]) : PadRight(cell, width[k]));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace torchscan::report
