#include "passes/instruction_count.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "io/file_io.h"
#include "passes/callgrind_profile.h"
#include "passes/instruction_protocol.h"
#include "passes/instruction_summary.h"
#include "passes/text_tail.h"
#include "process/exit_status.h"
#include "process/find_program.h"
#include "process/run.h"

namespace torchscan::passes {
namespace {

namespace fs = std::filesystem;

// The pass's temporary folder (spec, dumps, logs), removed with everything in it.
class TempDir {
 public:
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  bool Make() {
    std::error_code error;
    fs::path dir = fs::temp_directory_path(error);
    if (error) dir = "/tmp";
    std::string pattern = (dir / "torchscan_callgrind_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return false;
    path_ = pattern;
    return true;
  }
  std::string operator/(const std::string& name) const { return (fs::path(path_) / name).string(); }

 private:
  std::string path_;
};

std::string Failed(v1::InstructionCounts* counts, const std::string& why) {
  counts->set_complete(false);
  counts->add_diagnostics(why);
  return why;
}

std::vector<std::string> ValgrindWords(const TempDir& dir, const std::string& child, const std::string& spec,
                                       const InstructionOptions& o) {
  return {"--tool=callgrind",
          "--callgrind-out-file=" + (dir / "callgrind.out"),
          "--log-file=" + (dir / "valgrind.log"),
          "--collect-atstart=no",
          "--instr-atstart=no",  // the child starts it before its warm-up: start-up runs uninstrumented
          o.cache_simulation ? "--cache-sim=yes" : "--cache-sim=no",
          child,
          kInstructionChildFlag,
          spec,
          std::to_string(o.calls),
          std::to_string(o.intra_op_threads),
          std::to_string(o.inter_op_threads),
          std::to_string(o.warmup_calls),
          std::to_string(o.repeats)};
}

// Why the run gave no result, from its end, exit status and logs; "" when it exited 0.
std::string RunFailure(const process::RunResult& run, const TempDir& dir, const InstructionOptions& o) {
  if (!run.started) return "valgrind could not be started: " + run.error.text;
  if (run.end == process::End::kTimedOut)
    return absl::StrCat("the count ran past its ", o.timeout_s, " s limit and was killed");
  if (run.end == process::End::kKilled)
    return "cancelled: " + (o.control ? o.control->reason() : std::string("killed"));
  const process::ExitStatus status = process::DecodeWaitStatus(run.status.value_or(-1));
  if (status.kind == process::ExitStatus::Kind::kExited && status.code == 0) return "";
  const std::string how = status.kind == process::ExitStatus::Kind::kSignaled
                              ? "was killed by " + process::SignalName(status.signal)
                              : absl::StrCat("exited with status ", status.code);
  const absl::StatusOr<std::string> err = ReadFile(dir / "stderr");
  const absl::StatusOr<std::string> log = ReadFile(dir / "valgrind.log");
  // Valgrind (3.19) decodes no AVX-512: code compiled for it, as an AOTInductor package built
  // on an AVX-512 machine is, stops at its first such instruction.
  const bool unknown_instruction = status.kind == process::ExitStatus::Kind::kSignaled && status.signal == SIGILL;
  return absl::StrCat("the child under valgrind ", how,
                      unknown_instruction ? " (an instruction valgrind cannot decode: it runs no AVX-512 code, which "
                                            "an AOTInductor package compiled on this machine may hold; count the "
                                            "uncompiled model, or a package compiled for AVX2)"
                                          : "",
                      err.ok() && !err->empty() ? "; its stderr: " + TextTail(*err, 1500) : "",
                      log.ok() && !log->empty() ? "; valgrind's log: " + TextTail(*log, 1500) : "");
}

// The dumps, numbered in the order they were made: empty 1, calls 1, empty 2, calls 2 ...;
// nullopt (with the reason in `counts`) when one is missing, unreadable or not the loop expected.
std::optional<std::vector<CountedRepeat>> ReadRepeats(const TempDir& dir, int count, v1::InstructionCounts* counts,
                                                      std::string* creator) {
  std::vector<CountedRepeat> repeats;
  for (int r = 0; r < count; ++r) {
    CountedRepeat repeat;
    for (int k = 0; k < 2; ++k) {
      const std::string file = dir / absl::StrCat("callgrind.out.", 2 * r + k + 1);
      const absl::StatusOr<std::string> text = ReadFile(file);
      absl::StatusOr<CallgrindProfile> parsed =
          text.ok() ? ParseCallgrind(*text) : absl::StatusOr<CallgrindProfile>(text.status());
      const std::string expected = k == 0 ? EmptyLoopLabel(r + 1) : CallsLoopLabel(r + 1);
      if (!parsed.ok() || !absl::EndsWith(parsed->trigger, expected)) {
        Failed(counts, absl::StrCat("callgrind's dump for \"", expected, "\" is missing or unreadable: ",
                                    parsed.ok() ? "it is \"" + parsed->trigger + "\"" : parsed.status().ToString()));
        return std::nullopt;
      }
      *creator = parsed->creator;
      (k == 0 ? repeat.empty : repeat.calls) = *std::move(parsed);
    }
    repeats.push_back(std::move(repeat));
  }
  return repeats;
}

}  // namespace

v1::InstructionCounts CountInstructions(const v1::WorkloadSpec& spec, const std::string& child_path,
                                        const InstructionOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  v1::InstructionCounts counts;
  counts.set_limits(kInstructionLimits);
  counts.set_method(
      "valgrind --tool=callgrind in a fresh child: collection on only around the counted calls; the same loop "
      "around an empty call counted and subtracted; the median over the repeats");
  const auto finish = [&]() -> v1::InstructionCounts {
    counts.set_wall_s(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return counts;
  };
  if (o.calls < 1 || o.repeats < 1 || o.warmup_calls < 0 || !(o.timeout_s > 0)) {
    Failed(&counts, "calls and repeats must be at least 1, warm-up calls at least 0, the timeout positive");
    return finish();
  }
  const std::string valgrind = process::FindProgram(o.valgrind);
  if (valgrind.empty()) {
    Failed(&counts, "valgrind is not installed on the machine that ran the job (\"" + o.valgrind +
                        "\" not found): install Debian's valgrind (apt-get install valgrind, as scripts/setup.sh "
                        "does), or submit without --instructions");
    return finish();
  }
  if (child_path.empty() || ::access(child_path.c_str(), X_OK) != 0) {
    Failed(&counts, "the child '" + child_path +
                        "' is missing or not executable; build //passes:torchscan_rss_child and configure its path");
    return finish();
  }
  TempDir dir;
  std::string serialized;
  if (!dir.Make() || !spec.SerializeToString(&serialized) ||
      !WriteFileAtomic(dir / "spec.binpb", serialized, 0600).ok()) {
    Failed(&counts, absl::StrCat("could not write the child's temporary files: ", std::strerror(errno)));
    return finish();
  }
  process::RunOptions run;
  run.spawn.path = valgrind;
  run.spawn.args = ValgrindWords(dir, child_path, dir / "spec.binpb", o);
  run.spawn.setup.own_process_group = true;
  run.stderr_path = dir / "stderr";
  run.wall_time_s = o.timeout_s;
  run.control = o.control;
  std::string out;
  const process::RunResult result =
      process::Run(run, [&](const std::string& line) { absl::StrAppend(&out, line, "\n"); });
  if (const std::string why = RunFailure(result, dir, o); !why.empty()) {
    Failed(&counts, why);
    return finish();
  }
  const std::optional<InstructionChildResult> line = ParseInstructionChildOutput(out);
  if (!line || line->calls != o.calls || line->repeats != o.repeats) {
    Failed(&counts,
           "the child printed no valid result line; its stdout: " + (out.empty() ? "(empty)" : TextTail(out, 300)));
    return finish();
  }
  std::string creator;
  std::optional<std::vector<CountedRepeat>> repeats = ReadRepeats(dir, o.repeats, &counts, &creator);
  if (!repeats) return finish();
  SummaryOptions summary;
  summary.calls = o.calls;
  summary.warmup_calls = o.warmup_calls;
  SummarizeRepeats(*repeats, summary, &counts);
  counts.set_scope(absl::StrCat("one call on resident inputs, ", o.calls, " calls per repeat after ", o.warmup_calls,
                                " warm-up calls, with ", line->intra_op_threads, " intra-op and ",
                                line->inter_op_threads, " inter-op threads"));
  counts.set_tool(
      absl::StrCat(creator.empty() ? "callgrind" : creator, ", cache simulation ", o.cache_simulation ? "on" : "off"));
  return finish();
}

}  // namespace torchscan::passes
