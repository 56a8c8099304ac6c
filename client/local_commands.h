// Commands that need no daemon: render saved evidence, compare two saved reports.
#pragma once

#include <string>

#include "client/client_context.h"

namespace torchscan {

// `render IN.json [-o OUT] [--format F] [--run RUN]`: IN is a report or a comparison
// (strictly loaded); F one of RenderFormats() (report/render_by_format.h); without -o the
// output goes to stdout. A
// comparison's saved check status is rendered as saved; nothing is rerun. `run` (empty: the
// whole file) selects one run of a comparison, "before", "after" or a run's name, rendered as
// a plain report (SelectRun of report/evidence_view.h). A format that refuses the evidence
// (Renderer::Accepts: gbench of a comparison whose numbers are withheld) exits 2 with its
// reason and the exact `render IN --run before --format F` command that exports one run;
// nothing is written. Bad --format, --run or -o: exit 2 naming the flag.
int RenderCommand(const ClientContext& ctx, const std::string& input, const std::string& output,
                  const std::string& format, const std::string& run, bool details = false);

// `compare-reports BEFORE.json AFTER.json [--output DIR [--force]]`: the comparison rules over
// two saved reports, with no output check (output_check: not_provided). Each file must be a
// report (result_files.h says which command fits another kind); --output is checked first
// (output_folder.h): an earlier comparison there is replaced only with `force`.
int CompareReportsCommand(const ClientContext& ctx, const std::string& before, const std::string& after,
                          const std::string& output_dir, bool force);

}  // namespace torchscan
