// A stand-in for torchscan_rss_child in tests of the parent's failure paths. Its behaviour
// comes from the environment variable FAKE_RSS_CHILD_MODE:
//   ok       prints a valid result line (vm_hwm_bytes=4096, calls and thread counts from argv)
//   threads  like ok, but reports 7 intra-op threads whatever it was asked
//   crash    dies from SIGSEGV
//   hang     sleeps for 10 minutes
//   garbage  prints a line the parent cannot parse, exits 0
//   fail     prints a reason on stderr, exits 3
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "passes/rss_protocol.h"

int main(int argc, char** argv) {
  const char* mode_env = std::getenv("FAKE_RSS_CHILD_MODE");
  const std::string mode = mode_env == nullptr ? "ok" : mode_env;
  if (mode == "crash") {
    std::raise(SIGSEGV);
  } else if (mode == "hang") {
    std::this_thread::sleep_for(std::chrono::minutes(10));
  } else if (mode == "garbage") {
    std::cout << "hello from a confused child" << std::endl;
  } else if (mode == "fail") {
    std::cerr << "fake child: model file vanished" << std::endl;
    return 3;
  } else {
    const long calls = argc > 2 ? std::atol(argv[2]) : 0;
    const long intra = mode == "threads" ? 7 : argc > 3 ? std::atol(argv[3]) : 0;
    const long inter = argc > 4 ? std::atol(argv[4]) : 0;
    std::cout << torchscan::passes::FormatRssChildLine({4096, calls, intra, inter}) << std::endl;
  }
  return 0;
}
