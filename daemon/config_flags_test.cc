#include "daemon/config_flags.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include <CLI/CLI.hpp>

#include "absl/strings/str_cat.h"

namespace torchscan::daemon {
namespace {

// The help line of `flag` in `help` ("" when none).
std::string HelpLine(const std::string& help, const std::string& flag) {
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);)
    if (line.find("  " + flag + " ") != std::string::npos) return line;
  return "";
}

// What `torchscand --help` says a flag defaults to is what ApplyDefaults fills in.
TEST(ConfigFlags, HelpStatesTheDefaultsThatApply) {
  CLI::App app;
  ConfigFlags flags;
  AddConfigFlags(&app, &flags);
  const std::string help = app.help();

  MachineFacts root;
  root.is_root = true;  // worker_user is only filled for a root daemon
  v1::DaemonConfig applied;
  ApplyDefaults(root, &applied);
  ASSERT_EQ(applied.limits().max_upload_bytes() % (1 << 20), 0);
  const std::pair<const char*, std::string> stated[] = {
      {"--intra-op-threads", absl::StrCat("(", applied.default_intra_op_threads(), ")")},
      {"--inter-op-threads", absl::StrCat("(", applied.default_inter_op_threads(), ")")},
      {"--max-queue", absl::StrCat("(", applied.limits().max_queue_length(), ")")},
      {"--max-queued-per-user", absl::StrCat("(", applied.limits().max_queued_per_user(), ": --max-queue / ")},
      {"--job-wall-time", absl::StrCat("(", applied.limits().job_wall_time_s(), ")")},
      {"--max-upload", absl::StrCat("(", applied.limits().max_upload_bytes() >> 20, " MiB)")},
      {"--socket-mode", absl::StrCat("(", applied.socket_mode(), ")")},
      {"--worker-user", absl::StrCat("(", applied.worker_user(), ")")},
      {"--worker-open-files", absl::StrCat("(", applied.limits().worker_open_files(), ")")},
      {"--noise-floor-max-age", absl::StrCat("(", applied.noise_floor_max_age_s(), ": 7 days)")},
  };
  for (const auto& [flag, value] : stated) {
    const std::string line = HelpLine(help, flag);
    ASSERT_FALSE(line.empty()) << flag << " is not in the help:\n" << help;
    EXPECT_NE(line.find(value), std::string::npos) << flag << " should state " << value << ": " << line;
  }
}

TEST(ConfigFlags, EachFlagFillsItsField) {
  CLI::App app;
  ConfigFlags flags;
  AddConfigFlags(&app, &flags);
  app.parse("--state-dir /s --max-queue 5 --worker-open-files 17 --cpu-set 0-1", false);
  EXPECT_EQ(flags.state_dir, "/s");
  EXPECT_EQ(flags.max_queue_length, 5);
  EXPECT_EQ(flags.worker_open_files, 17);
  EXPECT_EQ(flags.cpu_set, "0-1");
  EXPECT_FALSE(flags.job_wall_time_s.has_value());
}

}  // namespace
}  // namespace torchscan::daemon
