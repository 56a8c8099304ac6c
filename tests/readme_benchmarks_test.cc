// Every benchmark command of README.md's "Benchmarks of TorchScan itself" runs as written
// (issue 15, item 4). The commands are read from the README itself, so an edit that breaks
// one fails here:
//   - each list item's first `code span` is a command: `bazel run //benchmarks:NAME [-- ARGS]`
//     or `bazel build TARGETS && bazel-bin/PATH ARGS`;
//   - a bazel-bin/ path it runs or passes must be one of its own build targets (a fresh
//     checkout has nothing else built), and torchscand comes with its worker;
//   - it runs with the built binaries of this test's runfiles in place of bazel run /
//     bazel-bin, with --quick added (tiny settings, benchmarks/benchmark_args.h), as this test's
//     user (root under CI: the daemon benchmarks must cope), and must exit 0;
//   - the benchmarks it runs are exactly the *_benchmark programs of benchmarks/BUILD.bazel.
// No figure is asserted: timings on a loaded machine mean nothing.
#include <sys/stat.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

constexpr char kSection[] = "## Benchmarks of TorchScan itself";

constexpr char kRunfilePrefix[] = "bazel-bin/";

struct ReadmeCommand {
  std::string text;               // as written, lines joined
  std::string program;            // workspace-relative: "benchmarks/daemon_benchmark"
  std::vector<std::string> args;  // as written, each bazel-bin/PATH replaced by PATH's runfile
  std::string error;              // why it cannot be run as written; empty when it can
};

std::vector<std::string> Words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// "//pkg/sub:name" -> "pkg/sub/name"; "" when not a label of that form.
std::string LabelPath(const std::string& label) {
  static const std::regex form("//([A-Za-z0-9_/.-]+):([A-Za-z0-9_.-]+)");
  std::smatch m;
  return std::regex_match(label, m, form) ? m[1].str() + "/" + m[2].str() : "";
}

// The section's list items' first code spans (a span may continue over the item's lines).
std::vector<std::string> CommandTexts(const std::string& readme) {
  const size_t start = readme.find(kSection);
  if (start == std::string::npos) return {};
  const size_t end = readme.find("\n## ", start + 1);
  std::istringstream lines(readme.substr(start, end == std::string::npos ? std::string::npos : end - start));
  std::vector<std::string> commands;
  std::string open;  // the span being read, when it continues on the next line
  bool in_span = false;
  for (std::string line; std::getline(lines, line);) {
    size_t from = 0;
    if (!in_span) {
      if (line.rfind("- `", 0) != 0) continue;
      from = 3;
      open.clear();
    }
    const size_t close = line.find('`', from);
    open += (in_span ? " " : "") + line.substr(from, close == std::string::npos ? std::string::npos : close - from);
    in_span = close == std::string::npos;
    if (!in_span) commands.push_back(open);
  }
  return commands;
}

ReadmeCommand Parse(const std::string& text) {
  ReadmeCommand c;
  c.text = text;
  const std::vector<std::string> w = Words(text);
  std::set<std::string> built;  // workspace-relative paths of the build targets
  size_t run_from = 0;          // the first word of what runs
  if (w.size() >= 3 && w[0] == "bazel" && w[1] == "run") {
    c.program = LabelPath(w[2]);
    for (size_t i = 3; i < w.size(); ++i)
      if (w[i] != "--" || i != 3) c.args.push_back(w[i]);
    if (c.program.empty()) c.error = "bazel run of something not a //package:target label";
    return c;
  }
  if (w.size() < 3 || w[0] != "bazel" || w[1] != "build") {
    c.error = "neither `bazel run //benchmarks:NAME` nor `bazel build TARGETS && bazel-bin/...`";
    return c;
  }
  size_t i = 2;
  for (; i < w.size() && w[i] != "&&"; ++i) {
    if (LabelPath(w[i]).empty()) c.error = "bazel build of " + w[i] + ", not a //package:target label";
    built.insert(LabelPath(w[i]));
  }
  // torchscand starts the worker it finds beside its own folder (daemon/config.h): built too.
  if (built.count("daemon/torchscand") && !built.count("worker/torchscan-worker"))
    c.error = "builds //daemon:torchscand without //worker:torchscan-worker, which its jobs run";
  run_from = i + 1;
  if (run_from >= w.size()) {
    c.error = "nothing runs after `bazel build ... &&`";
    return c;
  }
  for (size_t k = run_from; k < w.size(); ++k) {
    std::string word = w[k];
    if (word.rfind(kRunfilePrefix, 0) == 0) {
      word = word.substr(sizeof kRunfilePrefix - 1);
      if (!built.count(word)) c.error = w[k] + " is used but not built by the command's `bazel build`";
    } else if (k == run_from) {
      c.error = "runs " + word + ", not a bazel-bin/ program";
    }
    if (k == run_from) c.program = word;
    else c.args.push_back(w[k].rfind(kRunfilePrefix, 0) == 0 ? Runfile(word) : word);
  }
  return c;
}

bool Exists(const std::string& path) {
  struct stat s;
  return ::stat(path.c_str(), &s) == 0;
}

std::vector<ReadmeCommand> ReadmeCommands() {
  std::vector<ReadmeCommand> commands;
  for (const std::string& text : CommandTexts(Slurp(Runfile("README.md")))) commands.push_back(Parse(text));
  return commands;
}

TEST(ReadmeBenchmarks, ListsExactlyTheBenchmarksOfTheBuild) {
  const std::string build = Slurp(Runfile("benchmarks/BUILD.bazel"));
  ASSERT_FALSE(build.empty());
  std::set<std::string> in_build, in_readme;
  static const std::regex name("name = \"([A-Za-z0-9_]+_benchmark)\"");
  for (auto it = std::sregex_iterator(build.begin(), build.end(), name); it != std::sregex_iterator(); ++it)
    in_build.insert("benchmarks/" + (*it)[1].str());
  for (const ReadmeCommand& c : ReadmeCommands()) in_readme.insert(c.program);
  EXPECT_GE(in_build.size(), 5u) << build;  // harness_overhead, pass_cost, render, daemon, validity
  EXPECT_EQ(in_readme, in_build) << "README.md's \"" << kSection
                                 << "\" must list one command for each *_benchmark of benchmarks/BUILD.bazel";
}

TEST(ReadmeBenchmarks, EveryCommandRunsAsWrittenWithQuick) {
  const std::vector<ReadmeCommand> commands = ReadmeCommands();
  ASSERT_FALSE(commands.empty()) << "no `command` items under \"" << kSection << "\" in README.md";
  for (const ReadmeCommand& c : commands) {
    SCOPED_TRACE(c.text);
    ASSERT_EQ(c.error, "");
    ASSERT_TRUE(Exists(Runfile(c.program)))
        << c.program << " is not among this test's runfiles: add it to readme_benchmarks_test's data";
    std::vector<std::string> args = c.args;
    args.push_back("--quick");
    const CommandResult r = e2e::Run(Runfile(c.program), args, 240);
    std::printf("$ %s  (with --quick)\n%s\n", c.text.c_str(), r.out.c_str());
    EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
    EXPECT_FALSE(r.out.empty()) << r.err;
  }
}

// The parser itself, on commands that must be refused.
TEST(ReadmeBenchmarks, RefusesACommandThatRunsWhatItDoesNotBuild) {
  EXPECT_NE(Parse("bazel build //benchmarks:x && bazel-bin/benchmarks/x bazel-bin/daemon/torchscand").error, "");
  EXPECT_NE(Parse("bazel build //benchmarks:x && ./x").error, "");
  EXPECT_NE(Parse("make x").error, "");
  EXPECT_NE(
      Parse("bazel build //benchmarks:x //daemon:torchscand && bazel-bin/benchmarks/x bazel-bin/daemon/torchscand")
          .error,
      "");
  const ReadmeCommand ok =
      Parse("bazel build //benchmarks:x //daemon:d && bazel-bin/benchmarks/x bazel-bin/daemon/d 3");
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.program, "benchmarks/x");
  EXPECT_EQ(ok.args, (std::vector<std::string>{Runfile("daemon/d"), "3"}));
  const ReadmeCommand run = Parse("bazel run //benchmarks:y -- 7");
  EXPECT_EQ(run.program, "benchmarks/y");
  EXPECT_EQ(run.args, (std::vector<std::string>{"7"}));
}

}  // namespace
}  // namespace torchscan::e2e
