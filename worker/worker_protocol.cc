#include "worker/worker_protocol.h"

#include <algorithm>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "passes/rss_protocol.h"

namespace torchscan::worker {

std::string DescribeWorkerExit(int exit_code) {
  switch (exit_code) {
    case kWorkerOk: return "success";
    case kWorkerInternalError: return "internal error";
    case kWorkerBadSpec: return "bad spec";
    case kWorkerWorkloadError: return "workload error";
    case kWorkerOutOfMemory: return "out of memory";
    case kWorkerResultNotWritten: return "result not written";
    case kWorkerLaunchSetupFailed: return "launch set-up failed";
    default: return "unknown exit code";
  }
}

std::string FormatPhaseLine(std::string_view phase) {
  std::string text(phase);
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '\r', ' ');
  return absl::StrCat("phase ", text);
}

std::string FormatBlocksLine(int64_t blocks_done) { return absl::StrCat("blocks ", blocks_done); }

std::optional<WorkerLine> ParseWorkerLine(std::string_view text) {
  absl::string_view line(text.data(), text.size());
  absl::ConsumeSuffix(&line, "\r");
  WorkerLine parsed;
  if (line == kDoneLine || line == kReadyLine) {
    parsed.kind = line == kDoneLine ? WorkerLine::Kind::kDone : WorkerLine::Kind::kReady;
    return parsed;
  }
  if (absl::ConsumePrefix(&line, "phase ")) {
    if (absl::StripAsciiWhitespace(line).empty()) return std::nullopt;
    parsed.kind = WorkerLine::Kind::kPhase;
    parsed.phase = std::string(line);
    return parsed;
  }
  if (absl::ConsumePrefix(&line, "blocks ")) {
    if (line.empty() || !std::all_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt;
    if (!absl::SimpleAtoi(line, &parsed.blocks)) return std::nullopt;
    parsed.kind = WorkerLine::Kind::kBlocks;
    return parsed;
  }
  return std::nullopt;
}

std::string FormatHandoff(const Handoff& handoff) {
  return absl::StrCat("job ", handoff.job_dir, "\nstderr ", handoff.stderr_path, "\n");
}

std::optional<Handoff> ParseHandoff(std::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(absl::string_view(text.data(), text.size()), '\n');
  if (lines.size() != 3 || !lines[2].empty()) return std::nullopt;  // two lines, each ended
  Handoff handoff;
  if (!absl::ConsumePrefix(&lines[0], "job ") || !absl::ConsumePrefix(&lines[1], "stderr ")) return std::nullopt;
  if (lines[0].empty() || lines[1].empty()) return std::nullopt;
  handoff.job_dir = std::string(lines[0]);
  handoff.stderr_path = std::string(lines[1]);
  return handoff;
}

std::string FormatRssWaitingFds(const RssWaitingFds& fds) { return absl::StrCat(fds.socket_fd, ":", fds.stderr_fd); }

std::optional<RssWaitingFds> ParseRssWaitingFds(std::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(absl::string_view(text.data(), text.size()), ':');
  RssWaitingFds fds;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &fds.socket_fd) || !absl::SimpleAtoi(parts[1], &fds.stderr_fd) ||
      fds.socket_fd < 0 || fds.stderr_fd < 0)
    return std::nullopt;
  return fds;
}

std::vector<std::string> HelperProgramArgs(const HelperPrograms& helpers) {
  if (helpers.rss_child_path.empty()) return {};
  return {"--rss-child", helpers.rss_child_path};
}

int EarlyChildCount(const v1::JobSpec& spec) {
  if (!spec.options().rss()) return 0;
  return spec.has_compare() ? 2 : spec.has_measure() ? 1 : 0;
}

process::EarlyChildren WaitingRssChildren(const std::string& rss_child_path, int count) {
  process::EarlyChildren early;
  early.name = "RSS children";
  if (rss_child_path.empty()) return early;
  for (int i = 0; i < count; ++i)
    early.children.push_back({rss_child_path,
                              {passes::kRssChildWaitFlag},
                              "torchscan launcher: cannot execute the RSS child (rss_child_path)\n"});
  early.args_for = [](int socket_fd, int stderr_fd) {
    return std::vector<std::string>{"--rss-waiting", FormatRssWaitingFds({socket_fd, stderr_fd})};
  };
  return early;
}

process::EarlyChildren EarlyChildrenOf(const v1::JobSpec& spec, const HelperPrograms& helpers) {
  return WaitingRssChildren(helpers.rss_child_path, EarlyChildCount(spec));
}

std::vector<std::string> SpareArgs(int count) { return {"--rss-children", std::to_string(std::max(0, count))}; }

PhaseKind ClassifyPhase(std::string_view phase) {
  auto starts = [phase](std::string_view prefix) { return phase.substr(0, prefix.size()) == prefix; };
  if (starts("rss ")) return PhaseKind::kConcurrent;
  if (phase == "wait for rss") return PhaseKind::kJoin;
  if (starts("warm-up ") || starts("timing ")) return PhaseKind::kTimed;
  return PhaseKind::kOwn;
}

std::string EarlyChildrenSpan(int count) { return absl::StrCat("rss children (", count, " started with the worker)"); }

}  // namespace torchscan::worker
