// A user's first hour, as README.md's "Your own model" section tells it: the Python block is
// run to save a model, its optimized copy and an input; then the sh block's torchscan-client
// commands run, copied from the README (only each --output folder is moved into the test's
// own), in the three places the section names:
//   1. on a private daemon the client starts (as written);
//   2. on a resident daemon, by a second local user over its unix socket (root only);
//   3. on the same daemon over TCP with TLS and that user's token, from a folder the daemon's
//      workers cannot read (root only).
// The files travel with each job. What the test asserts cannot depend on load: exit codes,
// the check, comparability, and that the report names the files by their sha256sum.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "tests/access_fixtures.h"
#include "tests/e2e_jobs.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

const std::string kPython = e2e::ProjectPython();  // the project environment's, with torch

struct ReadmeExample {
  std::string python;                              // the section's ```python block
  std::vector<std::vector<std::string>> commands;  // its ```sh block, one torchscan-client command each
};

// The fenced block of `language` that first follows `from` in `text`; "" when there is none.
std::string Block(const std::string& text, size_t from, const std::string& language) {
  const std::string fence = "```" + language + "\n";
  const size_t start = text.find(fence, from);
  if (start == std::string::npos) return "";
  const size_t end = text.find("```\n", start + fence.size());
  return end == std::string::npos ? "" : text.substr(start + fence.size(), end - start - fence.size());
}

ReadmeExample FromReadme() {
  const std::string readme = Slurp(Runfile("README.md"));
  const size_t section = readme.find("\n### From the shell\n", readme.find("\n## Your own model\n"));
  EXPECT_NE(section, std::string::npos) << "README.md has no \"## Your own model\" / \"### From the shell\" section";
  ReadmeExample example;
  if (section == std::string::npos) return example;
  example.python = Block(readme, section, "python");
  std::string sh = Block(readme, section, "sh");
  sh = absl::StrReplaceAll(sh, {{"\\\n", " "}});  // line continuations
  for (absl::string_view line : absl::StrSplit(sh, '\n', absl::SkipWhitespace())) {
    std::vector<std::string> words = absl::StrSplit(absl::StripAsciiWhitespace(line), ' ', absl::SkipEmpty());
    EXPECT_EQ(words.front(), "torchscan-client") << line;
    example.commands.push_back(words);
  }
  EXPECT_FALSE(example.python.empty()) << "no ```python block in the section";
  EXPECT_EQ(example.commands.size(), 2u) << "the section's ```sh block: a measure and a compare";
  return example;
}

std::string Sha256sum(const std::string& file) {
  const CommandResult r = Run("/usr/bin/sha256sum", {file}, 60);
  return r.out.substr(0, 64);
}

// The README's commands with `global` flags first and each --output moved under `out_dir`.
std::vector<std::vector<std::string>> Commands(const ReadmeExample& example, const std::vector<std::string>& global,
                                               const std::string& out_dir) {
  std::vector<std::vector<std::string>> all;
  for (const std::vector<std::string>& words : example.commands) {
    std::vector<std::string> args = global;
    for (size_t i = 1; i < words.size(); ++i) {
      args.push_back(words[i]);
      if (words[i] == "--output" && i + 1 < words.size())
        args.push_back(out_dir + "/" + std::filesystem::path(words[++i]).filename().string());
    }
    all.push_back(args);
  }
  return all;
}

// What the two commands wrote: a report, and a passed, comparable comparison whose candidate
// names model_opt.pt by its sha256sum.
void ExpectEvidence(const std::string& out_dir, const std::string& files_dir, const std::string& where) {
  absl::StatusOr<v1::BenchmarkReport> report = report::LoadReport(out_dir + "/ts-measure/report.json");
  ASSERT_TRUE(report.ok()) << where << ": " << report.status();
  EXPECT_GE(report->timing().blocks_size(), 10) << where;
  absl::StatusOr<v1::Comparison> c = report::LoadComparison(out_dir + "/ts-compare/comparison.json");
  ASSERT_TRUE(c.ok()) << where << ": " << c.status();
  EXPECT_EQ(c->output_check().status(), v1::OutputCheck::passed) << where << ": " << c->output_check().message();
  EXPECT_TRUE(c->compatibility().compatible()) << where << ": " << c->compatibility().DebugString();
  EXPECT_NE(c->latency_change(), v1::Comparison::unavailable) << where;
  EXPECT_EQ(c->before().workload().at("model_revision"), "sha256:" + Sha256sum(files_dir + "/model.pt")) << where;
  EXPECT_EQ(c->after().workload().at("model_revision"), "sha256:" + Sha256sum(files_dir + "/model_opt.pt")) << where;
  EXPECT_EQ(c->before().input_metadata().fields().at("dataset_revision"), "v3") << where;
}

TEST(FirstHour, TheReadmesOwnModelStepsWorkPrivatelyOnTheSocketAndOverTls) {
  const ReadmeExample example = FromReadme();
  ASSERT_FALSE(HasFailure());
  const std::string client = Runfile("client/torchscan-client");

  // 1. A private daemon, as the user who saved the files.
  const std::string mine = TempDir("first_hour_mine");
  std::ofstream(mine + "/save.py") << example.python;
  CommandResult saved = e2e::Run("/usr/bin/env", {"-C", mine, kPython, "save.py"}, 120);
  ASSERT_EQ(saved.exit_code, 0)
      << "the README's Python block failed (the project environment's torch, scripts/setup.sh): " << saved.err;
  for (const std::vector<std::string>& args : Commands(example, {}, mine)) {
    std::vector<std::string> in_folder = {"-C", mine, client};
    in_folder.insert(in_folder.end(), args.begin(), args.end());
    const CommandResult r = e2e::Run("/usr/bin/env", in_folder, 300);
    ASSERT_EQ(r.exit_code, 0) << "private daemon: " << args[0] << ": " << r.err;
  }
  ExpectEvidence(mine, mine, "private daemon");

  if (::geteuid() != 0)
    GTEST_SKIP() << "the resident-daemon steps need root: they create a throw-away local user (useradd) whose "
                    "folder the daemon's workers (nobody) cannot read (CI runs the tests as root)";
  // 2. and 3. A resident daemon on a unix socket (group `group`) and on TCP with TLS; its
  // workers run as nobody. The user's folder is 0700: nothing in it is readable by them.
  const std::string suffix = std::to_string(::getpid() % 100000);
  const std::string user = "tsfh" + suffix, group = "tsfhg" + suffix;
  LocalAccounts accounts("/tmp/torchscan-first-hour-" + suffix);
  accounts.AddGroup(group);
  accounts.AddUser(user, group);
  if (HasFatalFailure()) return;
  const std::string home = accounts.home(user);
  const std::string user_client = accounts.dir() + "/torchscan-client";
  std::filesystem::copy_file(client, user_client);
  ::chmod(user_client.c_str(), 0755);
  const std::string save = TempDir("first_hour_save") + "/save.py";
  std::ofstream(save) << example.python;
  saved = accounts.RunAs(user, kPython, {accounts.GiveFile(user, save, 0600)});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;

  const Pki pki = MakePki(TempDir("first_hour_pki"));
  const std::string token = "first-hour-" + suffix + "-4b8e1d0c7a92";
  const std::string tokens = TempDir("first_hour_tokens") + "/tokens";
  WriteFile(tokens, user + " " + token + "\n", 0600);
  const std::string token_copy = TempDir("first_hour_token") + "/token";
  WriteFile(token_copy, token + "\n", 0600);
  const std::string user_token = accounts.GiveFile(user, token_copy, 0600);
  const std::string user_ca = accounts.GiveFile(user, pki.ca, 0644);
  const std::string tcp = "127.0.0.1:" + std::to_string(FreePort());
  const Placement placement = OpenPlacement("first_hour");
  TestDaemon d(placement.state_dir,
               With(placement.flags, {"--socket-group", group, "--listen", tcp, "--tls-cert", pki.server_cert,
                                      "--tls-key", pki.server_key, "--token-file", tokens}));
  const std::string socket = d.address().substr(std::string("unix:").size());
  ::chmod(std::filesystem::path(socket).parent_path().c_str(), 0755);  // the socket stays 0660, group `group`

  struct Place {
    std::string name;
    std::vector<std::string> global;
  };
  for (const Place& place : {Place{"socket", {"--daemon", d.address()}},
                             Place{"tls", {"--daemon", tcp, "--tls-ca", user_ca, "--token-file", user_token}}}) {
    const std::string out = home + "/out-" + place.name;
    for (const std::vector<std::string>& args : Commands(example, place.global, out)) {
      const CommandResult r = accounts.RunAs(user, user_client, args);
      ASSERT_EQ(r.exit_code, 0) << place.name << ": " << r.err;
    }
    ExpectEvidence(out, home, place.name);
  }
  // Both places recorded the same person, on each job: one per README command in each place.
  const std::vector<v1::Job> jobs = ListJobs(d);
  ASSERT_EQ(jobs.size(), 2 * example.commands.size());
  for (const v1::Job& job : jobs) EXPECT_EQ(job.submitter(), user) << job.id();
}

}  // namespace
}  // namespace torchscan::e2e
