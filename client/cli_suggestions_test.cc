#include "client/cli_suggestions.h"

#include <gtest/gtest.h>
#include <CLI/CLI.hpp>

namespace torchscan {
namespace {

// A small copy of the client's command tree.
struct Cli {
  CLI::App app{"test", "torchscan-client"};
  std::string daemon, id, output;
  double min_run_time = 0.2;
  bool rss = false;
  Cli() {
    app.add_option("--daemon", daemon);
    CLI::App* measure = app.add_subcommand("measure");
    measure->add_option("--min-run-time", min_run_time);
    measure->add_flag("--rss", rss);
    measure->add_option("--output", output);
    CLI::App* jobs = app.add_subcommand("jobs");
    jobs->add_subcommand("list");
    jobs->add_subcommand("show")->add_option("id", id);
  }
};

TEST(SuggestForCommandLine, AFlagTypoGetsTheNearestFlagOfItsCommand) {
  Cli cli;
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"measure", "--min-runtime", "1"}),
            "torchscan-client measure: unknown flag --min-runtime; did you mean --min-run-time? (see "
            "`torchscan-client measure --help`)");
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"--daemon", "x", "measure", "--rs"}),
            "torchscan-client measure: unknown flag --rs; did you mean --rss? (see `torchscan-client measure --help`)");
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"--deamon", "x", "measure"}),
            "torchscan-client: unknown flag --deamon; did you mean --daemon? (see `torchscan-client --help`)");
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"measure", "--min-run-time=1", "--outptu=o"}),
            "torchscan-client measure: unknown flag --outptu; did you mean --output? (see `torchscan-client measure "
            "--help`)");
}

TEST(SuggestForCommandLine, ACommandTypoGetsTheNearestCommand) {
  Cli cli;
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"mesure", "--rss"}),
            "torchscan-client: unknown command mesure; did you mean measure? (see `torchscan-client --help`)");
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"jobs", "lst"}),
            "torchscan-client jobs: unknown command lst; did you mean list? (see `torchscan-client jobs --help`)");
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"frobnicate"}),
            "torchscan-client: unknown command frobnicate (see `torchscan-client --help`)");
}

TEST(SuggestForCommandLine, KnownWordsGiveNothing) {
  Cli cli;
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"measure", "--min-run-time", "-1", "--rss"}), "");
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"jobs", "show", "job-000001"}), "");
  EXPECT_EQ(SuggestForCommandLine(cli.app, {"measure", "--min-run-time"}), "");  // a missing value: CLI11 says so
}

}  // namespace
}  // namespace torchscan
