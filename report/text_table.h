// Rows of cells as aligned plain-text columns, for terminal tables (history, jobs list): each
// column as wide as its widest cell (in code points, report/escaping.h DisplayWidth), cells
// joined by two spaces after `indent`, padded left for right-aligned columns and right for
// the others, trailing spaces dropped, one line per row ending in "\n". Cells are printed as
// given: callers make user text terminal-safe first. Pure; rows may have fewer cells than
// others (missing ones are empty).
#pragma once

#include <string>
#include <vector>

namespace torchscan::report {

std::string TextTable(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right_aligned = {},
                      const std::string& indent = "");

}  // namespace torchscan::report
