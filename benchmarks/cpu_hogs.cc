#include "benchmarks/cpu_hogs.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>

namespace torchscan::benchmarks {
namespace {

[[noreturn]] void Hog(unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> ms(5, 50);
  volatile double sink = 1;
  while (true) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms(random));
    while (std::chrono::steady_clock::now() < until)
      for (int i = 0; i < 1000; ++i) sink = sink * 1.0000001 + 1e-9;
    std::this_thread::sleep_for(std::chrono::milliseconds(ms(random)));
  }
}

}  // namespace

CpuHogs::CpuHogs(int count, unsigned seed) {
  for (int i = 0; i < count; ++i) {
    const pid_t pid = fork();
    if (pid < 0) {
      std::perror("cpu hogs: fork");
      std::exit(1);
    }
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      Hog(seed + static_cast<unsigned>(i));
    }
    pids_.push_back(pid);
  }
}

CpuHogs::~CpuHogs() {
  for (pid_t pid : pids_) kill(pid, SIGKILL);
  for (pid_t pid : pids_) waitpid(pid, nullptr, 0);
}

}  // namespace torchscan::benchmarks
