// Time to verdict (issue 15, item 6): the guide's linear comparison with --rss, from the command
// to comparison.json, three ways, side by side and alternating in one run:
//   embedded  `torchscan-client example --rss` with its own private daemon (the README's main job)
//   resident  the same through `--daemon` to a resident torchscand started here
//             (benchmarks/benchmark_daemon.h), which keeps a warm spare worker when it has one
//   python    benchmarks/python_peer/linear_comparison_peer.py: the same work done with
//             torch.utils.benchmark, torch.profiler and an RSS child per run, run with the
//             project environment's torch 2.11 (scripts/setup.sh makes it; $TORCHSCAN_VENV)
// and, from each resident job's timeline (proto Timeline), the job's submission being time 0:
// submit -> first timing phase (the start of the first "timing" span; a one-pass run's warm-up
// is inside it, an interleaved run's comes before it) and submit -> build (the
// start of the first "build" span: the daemon's and the worker's start-up, before any of the
// measurement's own work). A fourth kind, resident without --rss, shows both without the wait
// for the RSS children, which always end before timing starts; its runs come after the rounds,
// so that each resident --rss job follows one of its kind, as in a queue that repeats its
// job (a spare prepares as many RSS children as the last job used). A benchmark that prints
// figures, not a test.
//
//   bazel build //benchmarks:time_to_verdict_benchmark //client:torchscan-client //daemon:torchscand
//     //worker:torchscan-worker //passes:torchscan_rss_child &&
//   bazel-bin/benchmarks/time_to_verdict_benchmark [--runs 5] [--quick]
//
// Each round runs the three once, the order rotated from round to round, so drift of the
// machine falls on all three alike. Prints each run's wall time, the medians, the ratios
// embedded / python and resident / python, the p50 of submit -> first timed block, and the
// resident daemon's own VmRSS (idle, after the runs) apart from its spare worker's.
// --quick: 1 round, to check that it runs (//tests:readme_benchmarks_test). Gives up after 10
// minutes. Exit 0 when every run succeeded, 1 when one failed, 2 for bad flags.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "benchmarks/benchmark_daemon.h"
#include "core/statistics.h"
#include "io/proto_json.h"
#include "proto/report.pb.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
namespace v1 = torchscan::v1;
using namespace torchscan::benchmarks;

constexpr auto kGiveUpAfter = std::chrono::seconds(600);

constexpr char kPeer[] = "benchmarks/python_peer/linear_comparison_peer.py";

// The peer script, a data file of this program: beside it in a runfiles tree (as a test runs
// it), in its own runfiles (bazel-bin/), or under the current folder (the repository root).
// "" when none is there.
std::string FindPeer(const char* argv0) {
  const fs::path self(argv0);
  const std::vector<fs::path> candidates = {
      self.parent_path() / "python_peer/linear_comparison_peer.py",
      fs::path(self.string() + ".runfiles") / "torchscan" / kPeer,
      fs::path(kPeer),
  };
  for (const fs::path& p : candidates)
    if (fs::is_regular_file(p)) return p.string();
  return "";
}

// The project environment's Python (scripts/setup.sh): $TORCHSCAN_VENV/bin/python, by default
// /opt/torchscan/venv/bin/python.
std::string ProjectPython() {
  const char* venv = std::getenv("TORCHSCAN_VENV");
  return std::string(venv != nullptr && *venv != '\0' ? venv : "/opt/torchscan/venv") + "/bin/python";
}

struct Flags {
  std::string client = "bazel-bin/client/torchscan-client";
  std::string daemon = "bazel-bin/daemon/torchscand";
  std::string python = ProjectPython();
  std::string peer;  // "": FindPeer
  int runs = 5;
  bool quick = false;
};

Flags ParseFlags(int argc, char** argv) {
  Flags f;
  CLI::App app(
      "time_to_verdict_benchmark: the guide's linear comparison with --rss through an embedded daemon, a "
      "resident daemon and the Python peer, alternating; prints wall times, ratios and submit -> first "
      "timed block");
  app.add_option("--client", f.client, "torchscan-client (default bazel-bin/client/torchscan-client)");
  app.add_option("--daemon-path", f.daemon, "torchscand for the resident daemon (default bazel-bin/daemon/torchscand)");
  app.add_option("--python", f.python,
                 "Python with torch (default the project environment's, $TORCHSCAN_VENV/bin/python)");
  app.add_option("--peer", f.peer,
                 "the Python peer script (default: benchmarks/python_peer/linear_comparison_peer.py "
                 "in this program's runfiles, else under the current folder)");
  CLI::Option* runs = app.add_option("--runs", f.runs, "rounds of the three (default 5)");
  app.add_flag("--quick", f.quick, "1 round: a smoke run");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e) == 0 ? 0 : 2);
  }
  if (f.quick && runs->count() == 0) f.runs = 1;
  auto refuse = [](const std::string& why) {
    std::fprintf(stderr, "time_to_verdict_benchmark: %s\n", why.c_str());
    std::exit(2);
  };
  if (f.runs < 1 || f.runs > 100) refuse("--runs must be 1..100, got " + std::to_string(f.runs));
  for (const std::string* path : {&f.client, &f.python})
    if (::access(path->c_str(), X_OK) != 0)
      refuse("cannot execute " + *path +
             " (build it with the bazel build line in this program's header; for "
             "--python make the project environment with scripts/setup.sh)");
  if (f.peer.empty()) f.peer = FindPeer(argv[0]);
  if (!fs::is_regular_file(f.peer))
    refuse("--peer " + (f.peer.empty() ? std::string(kPeer) : f.peer) +
           " is not a file (give --peer, or run from the repository root)");
  return f;
}

// Runs `args` with stdout and stderr to `log`; returns the wall seconds. Gives up when it
// cannot start or does not exit 0, with the log's path.
double TimedRun(const std::vector<std::string>& args, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The embedded run must start its own daemon: no TORCHSCAN_DAEMON from our environment.
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::string(*e).rfind("TORCHSCAN_DAEMON=", 0) != 0) env.push_back(*e);
  env.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) GiveUp("cannot start " + args[0] + ": " + std::strerror(spawned));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) GiveUp(args[0] + " failed; its output is in " + log);
  return wall;
}

// From a comparison's job timeline, seconds from the job's submission to its first "build"
// span and to its first "timing" span; NAN for what it lacks (or an unreadable file).
struct Starts {
  double build = NAN, timing = NAN;
};
Starts SpanStarts(const std::string& comparison_json) {
  Starts starts;
  v1::Comparison c;
  if (!torchscan::LoadJsonStrict(comparison_json, &c).ok()) return starts;
  for (const v1::PhaseSpan& span : c.job_timeline().spans()) {
    if (std::isnan(starts.build) && span.phase().rfind("build", 0) == 0) starts.build = span.start_s();
    if (std::isnan(starts.timing) && span.phase().rfind("timing", 0) == 0) starts.timing = span.start_s();
  }
  return starts;
}

// VmRSS of `pid` in bytes, 0 when unknown.
double VmRssBytes(int pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::atof(line.c_str() + 6) * 1024;
  return 0;
}

// The pids whose parent is `pid` (a resident daemon's spare worker, when it keeps one).
std::vector<int> ChildrenOf(int pid) {
  std::vector<int> children;
  for (const fs::directory_entry& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(e.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const size_t close = line.rfind(')');
    int ppid = 0;
    char state = 0;
    if (close != std::string::npos && std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) == 2 &&
        ppid == pid)
      children.push_back(std::stoi(name));
  }
  return children;
}

// The median of the values that are not NAN; NAN when none is.
double Median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  return torchscan::Quantile(v, 0.5).value_or(NAN);
}

void PrintMemory(const char* when, int daemon_pid) {
  double spare = 0;
  const std::vector<int> children = ChildrenOf(daemon_pid);
  for (int child : children) spare += VmRssBytes(child);
  std::printf("resident torchscand VmRSS %s: %.1f MiB; its %zu child process(es) (a spare worker): %.1f MiB\n", when,
              VmRssBytes(daemon_pid) / (1 << 20), children.size(), spare / (1 << 20));
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = ParseFlags(argc, argv);
  char folder_template[] = "/tmp/torchscan-ttv-XXXXXX";
  if (::mkdtemp(folder_template) == nullptr) {
    std::fprintf(stderr, "time_to_verdict_benchmark: cannot make a folder under /tmp\n");
    return 1;
  }
  const std::string folder = folder_template;
  BenchmarkDaemon daemon = StartBenchmarkDaemon("time_to_verdict_benchmark", f.daemon, kGiveUpAfter);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // let a spare worker finish loading
  PrintMemory("idle, before the runs", daemon.pid);

  const std::vector<std::string> kinds = {"embedded", "resident", "python"};
  std::map<std::string, std::vector<double>> wall, first_block, build_start;
  std::printf("\n%-6s %-15s %8s %14s %14s\n", "round", "kind", "wall s", "->build ms", "->timing ms");
  auto run = [&](const std::string& kind, int round) {
    const std::string out = folder + "/" + kind + "-" + std::to_string(round + 1);
    std::vector<std::string> args;
    if (kind == "python") args = {f.python, f.peer, "--rss", "--output", out};
    else if (kind == "embedded") args = {f.client, "example", "--rss", "--output", out};
    else if (kind == "resident") args = {f.client, "--daemon", daemon.address, "example", "--rss", "--output", out};
    else args = {f.client, "--daemon", daemon.address, "example", "--output", out};
    const double seconds = TimedRun(args, out + ".log");
    wall[kind].push_back(seconds);
    const Starts starts = kind == "python" ? Starts() : SpanStarts(out + "/comparison.json");
    const double build = starts.build, first = starts.timing;
    build_start[kind].push_back(build);
    first_block[kind].push_back(first);
    auto ms = [](double s) { return std::isnan(s) ? std::string() : std::to_string(std::lround(s * 1e3)); };
    std::printf("%-6d %-15s %8.2f %14s %14s\n", round + 1, kind.c_str(), seconds, ms(build).c_str(), ms(first).c_str());
    std::fflush(stdout);
    // A resident daemon starts its next spare when a job ends: give it the time it needs, as
    // a queue with gaps between jobs would (a job arriving sooner waits for it).
    if (kind.rfind("resident", 0) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  };
  // A resident daemon's spare prepares as many RSS children as its last job used (a queue
  // repeats its kind of job): one --rss job first, not counted, as the queue before ours.
  TimedRun({f.client, "--daemon", daemon.address, "example", "--rss", "--output", folder + "/resident-0"},
           folder + "/resident-0.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  for (int round = 0; round < f.runs; ++round)
    for (size_t k = 0; k < kinds.size(); ++k) run(kinds[(k + round) % kinds.size()], round);
  // Without --rss after the rounds, so that the --rss jobs above each followed one of their kind.
  for (int round = 0; round < f.runs; ++round) run("resident-norss", round);
  const double python = Median(wall["python"]);
  std::printf(
      "\nmedian wall: embedded %.2f s, resident %.2f s, python %.2f s; resident without --rss %.2f s (%d "
      "rounds)\n",
      Median(wall["embedded"]), Median(wall["resident"]), python, Median(wall["resident-norss"]), f.runs);
  std::printf("embedded / python: %.2f (target <= 0.40)\n", Median(wall["embedded"]) / python);
  std::printf("resident / python: %.2f (target <= 0.25)\n", Median(wall["resident"]) / python);
  for (const char* kind : {"embedded", "resident", "resident-norss"})
    std::printf("%-15s submit -> build p50 %.0f ms, submit -> first timing phase p50 %.0f ms\n", kind,
                Median(build_start[kind]) * 1e3, Median(first_block[kind]) * 1e3);
  std::this_thread::sleep_for(std::chrono::seconds(2));
  PrintMemory("idle, after the runs", daemon.pid);
  daemon.client.reset();
  StopBenchmarkDaemon();
  fs::remove_all(folder);
  return 0;
}
