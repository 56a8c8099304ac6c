// Commands that need no daemon: render saved evidence, compare two saved reports.
#pragma once

#include <string>

#include "client/client_context.h"

namespace torchscan {

// `render IN.json [-o OUT] [--format html|terminal|markdown|csv|gbench]`: IN is a report or
// a comparison (strictly loaded); without -o the output goes to stdout. A comparison's saved
// check status is rendered as saved; nothing is rerun.
int RenderCommand(const ClientContext& ctx, const std::string& input, const std::string& output,
                  const std::string& format);

// `compare-reports BEFORE.json AFTER.json [--output DIR]`: the comparison rules over two saved
// reports, with no output check (output_check: not_provided).
int CompareReportsCommand(const ClientContext& ctx, const std::string& before, const std::string& after,
                          const std::string& output_dir);

}  // namespace torchscan
