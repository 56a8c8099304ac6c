// `torchscan-client history NAME [--state S]... [--limit N] [--output DIR [--force]]
// [--against REV [--fail-on ... --gate-on ...]]`: a benchmark's results over time, from a
// resident daemon's History RPC (a job's name is its --label). Returns an exit code
// (exit_codes.h).
//
// Reads the newest `limit` jobs named NAME (0: all) in the given states (none: every state)
// on the --device given (none: every device), page by page (history_paging.h), and:
//  - prints the terminal table with its sparkline (report/history_text.h; Unicode blocks when
//    ctx.unicode), or with --json the jobs as one HistoryResponse JSON document;
//  - writes DIR/history.html (report/history_html.h) and, for each point, its evidence as
//    DIR/reports/<job id>.json and .html (the report page the history page links to). A report
//    page already there from an earlier run is reused, not fetched again: a finished job's
//    result never changes (one folder per daemon: another daemon's job ids name other jobs;
//    `force` fetches every page again).
//    DIR: --output, else DefaultHistoryFolder(NAME) (./torchscan-history-NAME).
//  - with --against REV: compares the newest point with the newest point at revision REV
//    (history_against.h) by the guide's rules, as compare-reports does (no output check:
//    not_provided), writes DIR/comparison.json and .html, prints the terminal comparison after
//    the table (with --json: the comparison's JSON instead of the jobs), and applies ctx.gate
//    (--fail-on, --gate-on) exactly as compare-reports does: exit 6 when it matches.
//
// With --table-only nothing is written and no report is fetched: the table (or --json) only,
// the quick look at a long history; --output and --against (which write files) are refused
// beside it.
//
// The folder is checked before anything is asked (output_folder.h): a folder that an earlier
// `history` run wrote (it holds history.html) is updated in place; in any other folder a
// history.html or comparison.json/.html already there is replaced only with `force`.
//
// Errors (exit 2 unless said): no resident daemon (--daemon, TORCHSCAN_DAEMON) or several;
// --fail-on without --against;
// --limit below 0, a --state word that is no state, an empty NAME; --table-only with --output
// or --against; no job named NAME at all
// (naming it and, when one is close, a name that exists); --against's errors
// (history_against.h), and --against between points that ran on different devices without
// --device (naming both and the fix). A name with jobs, none of them in the --state filter: the empty table,
// exit 0. A point whose result cannot be fetched is listed without a link (a warning on
// stderr). Connection and daemon errors map by exit_codes.h.
#pragma once

#include <string>
#include <vector>

#include "client/client_context.h"
#include "client/history_paging.h"

namespace torchscan {

struct HistoryOptions {
  std::string name;                  // NAME: the jobs' label
  std::vector<std::string> states;   // --state (repeatable); empty: every state
  int limit = kDefaultHistoryLimit;  // --limit: the newest N jobs; 0: every job
  std::string output_dir;            // --output; "": DefaultHistoryFolder(name)
  bool force = false;                // --force: replace files `history` did not write; fetch every report page again
  std::string against;               // --against REV; "": no comparison
  bool against_given = false;        // --against was on the command line (an empty REV is refused)
  bool table_only = false;           // --table-only: print, write no file, fetch no report
  std::string device;                // --device: only jobs that ran on it; "": every device
};

int HistoryCommand(const ClientContext& ctx, const HistoryOptions& options);

}  // namespace torchscan
