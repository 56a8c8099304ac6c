// Live progress of a job while the client waits: on a terminal one line redrawn in place
// (state, queue position, phase, blocks, elapsed time); otherwise one plain line per change
// of state or phase, so logs stay readable. Writes to stderr-like streams only.
#pragma once

#include <cstdio>
#include <string>

#include "proto/service.pb.h"

namespace torchscan {

class ProgressPrinter {
 public:
  // `terminal`: redraw in place (use isatty on `out`).
  ProgressPrinter(std::FILE* out, bool terminal);
  void OnEvent(const v1::JobEvent& event);
  // Ends the live line, if any.
  void Finish();

 private:
  // "queued #2", "running: timing baseline, 120 blocks", "succeeded" ...
  static std::string Describe(const v1::Job& job);

  std::FILE* out_;
  bool terminal_;
  std::string last_line_;
  double started_ = 0;
  int spin_ = 0;
};

}  // namespace torchscan
