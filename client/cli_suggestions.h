// "Did you mean ...?" for a command line CLI11 refused: the first unknown flag or subcommand,
// with the nearest known one (io/nearest_name.h) and the --help that lists them all.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace torchscan {

// Walks `args` (argv without the program name) through `app`'s subcommands and returns, for
// the first word that is neither a known flag (of the current subcommand or one above it)
// nor a known subcommand where one is expected:
//   "torchscan-client measure: unknown flag --min-runtime; did you mean --min-run-time? (see
//    `torchscan-client measure --help`)"
//   "torchscan-client: unknown command mesure; did you mean measure? (see `torchscan-client
//    --help`)"
// (without "did you mean" when nothing is close). "" when every word is known: CLI11's own
// message then says what is wrong (a missing value, a bad number ...).
std::string SuggestForCommandLine(const CLI::App& app, const std::vector<std::string>& args);

}  // namespace torchscan
