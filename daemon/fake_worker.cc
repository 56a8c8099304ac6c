// A stand-in for torchscan-worker in tests: no LibTorch, behaviour chosen by
//   fake_worker --mode "MODE [key=value ...]"        (launcher tests), or
//   fake_worker --job DIR [--rss-child P]             MODE from spec.json's label
//   fake_worker --spare [--rss-child P]               prints "ready" (after
//                  $FAKE_SPARE_LOAD_S seconds, if set), takes its job from stdin as
//                  torchscan-worker --spare does (worker_protocol.h), then as --job DIR;
//                  with $FAKE_SPARE_FAIL set it exits 3 instead of saying "ready"
// MODE: ok (result written), compare (a comparison result), calibrate (a calibration
// result), noresult (exit 0, nothing
// written), exit (exit=N, with a stderr line), crash (SIGSEGV), memory (allocates 1 GiB:
// exit 4 when refused), env (prints "affinity <cpus>", "rlimit_as <n>", "rlimit_core <n>",
// "pgid_is_pid <0|1>"), spawn (starts a grandchild that prints "grandchild <pid>" and
// sleeps), flood (prints lines=N protocol lines fast).
// Keys: sleep=S (seconds, before finishing), log=PATH (appends "start DIR" / "end DIR"),
// wait=PATH (before finishing, until PATH exists; 60 s at most), pin=PATH (appends "DIR
// <CUDA_VISIBLE_DEVICES> <TORCHSCAN_PINNED_GPUS> <affinity>", "-" for a variable not set).
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "daemon/fake_report.h"
#include "io/proto_json.h"
#include "proto/service.pb.h"
#include "report/report_json.h"
#include "worker/job_spec_file.h"
#include "worker/state_folder.h"
#include "worker/worker_protocol.h"

namespace {

using torchscan::daemon::FakeReport;

void Log(const std::map<std::string, std::string>& keys, const std::string& what) {
  auto it = keys.find("log");
  if (it == keys.end()) return;
  std::ofstream(it->second, std::ios::app) << what << std::endl;
}

// MODE and its key=value words.
struct Mode {
  std::string name;
  std::map<std::string, std::string> keys;
};

Mode ParseMode(const std::string& text) {
  std::istringstream words(text);
  Mode mode;
  std::string word;
  words >> mode.name;
  while (words >> word) {
    const size_t eq = word.find('=');
    if (eq != std::string::npos) mode.keys[word.substr(0, eq)] = word.substr(eq + 1);
  }
  return mode;
}

// The CPUs this process may run on, e.g. "0,1".
std::string CpuList() {
  cpu_set_t set;
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof(set), &set);
  std::string cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus += (cpus.empty() ? "" : ",") + std::to_string(cpu);
  return cpus;
}

// "affinity <cpus>", "rlimit_as <n>", "rlimit_core <n>", "pgid_is_pid <0|1>" on stdout.
void PrintEnvironment() {
  const std::string cpus = CpuList();
  rlimit as{}, core{};
  getrlimit(RLIMIT_AS, &as);
  getrlimit(RLIMIT_CORE, &core);
  std::cout << "affinity " << cpus << "\nrlimit_as " << static_cast<long long>(as.rlim_cur) << "\nrlimit_core "
            << static_cast<long long>(core.rlim_cur) << "\npgid_is_pid " << (getpgrp() == getpid()) << std::endl;
}

std::string Variable(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "-" : value;
}

// Does what the mode asks (the modes that write a result do nothing here); the exit code.
int Act(Mode& mode) {
  int code = 0;
  if (mode.name == "exit") {
    code = std::atoi(mode.keys["exit"].c_str());
    std::cerr << "some noise\ntorchscan-worker: fake failure " << code << std::endl;
  } else if (mode.name == "crash") {
    std::cerr << "about to crash" << std::endl;
    ::raise(SIGSEGV);
  } else if (mode.name == "memory") {
    void* block = std::malloc(size_t{1} << 30);
    if (block == nullptr) {
      std::cerr << "torchscan-worker: out of memory" << std::endl;
      code = 4;
    } else {
      std::memset(block, 1, size_t{1} << 30);
      std::free(block);
    }
  } else if (mode.name == "env") {
    PrintEnvironment();
  } else if (mode.name == "spawn") {
    const pid_t child = fork();
    if (child == 0) {
      std::cout << "grandchild " << getpid() << std::endl;
      std::this_thread::sleep_for(std::chrono::seconds(60));
      _exit(0);
    }
    std::this_thread::sleep_for(std::chrono::seconds(60));
  } else if (mode.name == "flood") {
    const int lines = std::atoi(mode.keys["lines"].c_str());
    for (int i = 1; i <= lines; ++i) std::cout << "blocks " << i << "\n";
    std::cout << std::flush;
  }
  return code;
}

// Writes a fake comparison (mode compare; candidate median 1 ms, baseline 2 ms), calibration
// (mode calibrate) or measurement (median 3 ms) result into `job_dir`; false when it cannot.
bool WriteResult(const std::string& mode, const std::string& job_dir) {
  torchscan::v1::JobResult result;
  if (mode == "compare") {
    auto* c = result.mutable_comparison();
    c->set_schema_version(torchscan::report::kReportSchemaVersion);
    *c->mutable_before() = FakeReport("baseline");
    *c->mutable_after() = FakeReport("candidate");
    c->mutable_output_check()->set_status(torchscan::v1::OutputCheck::passed);
    c->mutable_compatibility();
    c->set_latency_change(torchscan::v1::Comparison::faster);
    c->mutable_before()->mutable_timing()->mutable_summary()->set_median_s(0.002);
    c->mutable_after()->mutable_timing()->mutable_summary()->set_median_s(0.001);
  } else if (mode == "calibrate") {
    result.mutable_calibration()->set_schema_version(torchscan::report::kReportSchemaVersion);
    result.mutable_calibration()->mutable_noise_floor()->set_pairs(3);
  } else {
    *result.mutable_report() = FakeReport("measurement");
    result.mutable_report()->mutable_timing()->mutable_summary()->set_median_s(0.003);
  }
  if (!torchscan::SaveJson(result, job_dir + "/" + torchscan::worker::kJobResultFile).ok()) return false;
  std::cout << "done" << std::endl;
  return true;
}

}  // namespace

// --spare: "ready", then the job folder from stdin, stderr to the handoff's file; "" when
// stdin ended without a job.
std::string WaitAsSpare() {
  if (const char* load = std::getenv("FAKE_SPARE_LOAD_S"))
    std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(load)));
  if (std::getenv("FAKE_SPARE_FAIL") != nullptr) {
    std::cerr << "torchscan-worker: fake spare cannot load" << std::endl;
    std::exit(3);
  }
  std::cout << torchscan::worker::kReadyLine << std::endl;
  const std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  const std::optional<torchscan::worker::Handoff> handoff = torchscan::worker::ParseHandoff(text);
  if (!handoff) return "";
  if (std::getenv("FAKE_SPARE_DIE_ON_HANDOFF") != nullptr) ::raise(SIGKILL);  // as if killed just before
  const int err = ::open(handoff->stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (err >= 0) ::dup2(err, STDERR_FILENO);
  return handoff->job_dir;
}

int main(int argc, char** argv) {
  std::string mode_text, job_dir;
  bool spare = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--spare") == 0) spare = true;
    if (i + 1 < argc && std::strcmp(argv[i], "--mode") == 0) mode_text = argv[i + 1];
    if (i + 1 < argc && std::strcmp(argv[i], "--job") == 0) job_dir = argv[i + 1];
  }
  if (spare) {
    job_dir = WaitAsSpare();
    if (job_dir.empty()) return 0;
  }
  if (!job_dir.empty()) {
    torchscan::v1::JobSpec spec;
    if (!torchscan::worker::LoadJobSpec(job_dir, &spec).ok()) {
      std::cerr << "torchscan-worker: fake: cannot read " << torchscan::worker::kJobSpecFile << std::endl;
      return 2;
    }
    mode_text = spec.label();
  }
  Mode mode = ParseMode(mode_text);
  Log(mode.keys, "start " + job_dir);
  std::cout << "phase fake " << mode.name << std::endl;
  std::cout << "not a protocol line" << std::endl;
  std::cout << "blocks 3" << std::endl;
  if (mode.keys.count("pin"))
    std::ofstream(mode.keys["pin"], std::ios::app)
        << job_dir << " " << Variable("CUDA_VISIBLE_DEVICES") << " " << Variable("TORCHSCAN_PINNED_GPUS") << " "
        << CpuList() << std::endl;
  if (mode.keys.count("sleep"))
    std::this_thread::sleep_for(std::chrono::duration<double>(std::atof(mode.keys["sleep"].c_str())));
  for (int i = 0; mode.keys.count("wait") && i < 6000 && ::access(mode.keys["wait"].c_str(), F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));

  const int code = Act(mode);
  if (code == 0 && !job_dir.empty() && mode.name != "noresult" && !WriteResult(mode.name, job_dir)) return 5;
  Log(mode.keys, "end " + job_dir);
  return code;
}
