// What the RSS child (rss_child_main.cc) prints and the parent (peak_rss.h) reads: one line
//   torchscan_rss_child vm_hwm_bytes=<bytes> calls=<completed calls> intra_op_threads=<n> inter_op_threads=<n>
// on stdout. Pure functions: no LibTorch, no processes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"

namespace torchscan::passes {

// The child's one flag besides the four words: started before its trial is known, it reads
// those words as one line on stdin (rss_child_main.cc).
inline constexpr char kRssChildWaitFlag[] = "--wait";

struct RssChildResult {
  int64_t vm_hwm_bytes = 0;      // peak resident set of the child, from VmHWM
  int64_t calls = 0;             // calls the child completed before reading VmHWM
  int64_t intra_op_threads = 0;  // at::get_num_threads() in the child, after its calls
  int64_t inter_op_threads = 0;  // at::get_num_interop_threads() in the child
};

// VmHWM from the text of /proc/<pid>/status ("VmHWM:   1234 kB"), in bytes (kB x 1024).
// nullopt when the line is missing or malformed (e.g. not Linux).
std::optional<int64_t> ParseVmHwmBytes(absl::string_view proc_status);

// The child's result line, without a trailing newline.
std::string FormatRssChildLine(const RssChildResult& result);

// The result from the child's whole stdout: the last line that starts with
// "torchscan_rss_child " and holds all four fields as non-negative integers. nullopt otherwise.
std::optional<RssChildResult> ParseRssChildOutput(absl::string_view stdout_text);

}  // namespace torchscan::passes
