// Bursty CPU hogs beside a benchmark, as other users' work on a shared machine (issue 40): each
// a child process that spins for a random 5-50 ms, then sleeps a random 5-50 ms, over and over
// (about half of one CPU on average, in bursts the length of a timing round). They die with
// the benchmark (PR_SET_PDEATHSIG) or when stopped.
#pragma once

#include <sys/types.h>

#include <vector>

namespace torchscan::benchmarks {

class CpuHogs {
 public:
  // Starts `count` hogs (0: none), each with its own random stream from `seed`.
  explicit CpuHogs(int count, unsigned seed = 40);
  ~CpuHogs();  // stops them (SIGKILL, then reaped)
  CpuHogs(const CpuHogs&) = delete;
  CpuHogs& operator=(const CpuHogs&) = delete;

  int count() const { return static_cast<int>(pids_.size()); }

 private:
  std::vector<pid_t> pids_;
};

}  // namespace torchscan::benchmarks
