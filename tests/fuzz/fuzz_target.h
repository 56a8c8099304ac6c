// What every TorchScan fuzz target provides and the helpers they share.
//
// A fuzz target defines FuzzOne; fuzz_entry.cc turns it into libFuzzer's
// LLVMFuzzerTestOneInput (the clang -fsanitize=fuzzer build in scripts/fuzz.sh) and
// fuzz_replay_main.cc into an ordinary gcc cc_test that replays the seed corpus.
//
// FuzzOne must return for every input (a hostile file is an error, never a crash). When a
// property of the code under test is broken (an error without the field's name, a saved
// file that does not load back, a renderer that returns nothing) it calls FuzzFail, which
// prints the reason and aborts, so both libFuzzer and the replay test report a failure.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message.h>
#include "absl/status/status.h"

namespace torchscan::fuzz {

enum class Verdict {
  kRejected,  // the loader returned an error (as it must for bad input)
  kAccepted,  // the input loaded and validated
};

// Defined by each fuzz target.
Verdict FuzzOne(std::string_view input);

// Prints "fuzz property broken: <what>\n<detail>" to stderr and aborts.
[[noreturn]] void FuzzFail(const std::string& what, const std::string& detail = "");

// FuzzFail unless `status` is an error of code `code` whose message starts with `prefix`
// (loaders name the file, validators the field). `what` says which call returned it.
void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& prefix, const std::string& what);

// FuzzFail unless `status` is what spec/job_spec.h ValidateJobSpec may return: OK, or
// InvalidArgument, ResourceExhausted or FailedPrecondition with a message naming the field
// ("spec..."). `what` says which call returned it.
void ExpectJobSpecVerdict(const absl::Status& status, const std::string& what);

// FuzzFail unless `reloaded` (a message after a save and a load) holds exactly what
// `original` held: compared as deterministic wire bytes, so NaN equals NaN.
void ExpectSameMessage(const google::protobuf::Message& original, const google::protobuf::Message& reloaded,
                       const std::string& what);

// One in-memory file (memfd) per process, so that loaders that take a path (LoadJobFile,
// LoadEvidence) read the fuzz input exactly as they read a user's file. Not thread-safe.
class InputFile {
 public:
  // The process-wide file; FuzzFail if the kernel refuses a memfd.
  static InputFile& Get();
  // Replaces the file's contents with `bytes`; FuzzFail on a write error.
  void Write(std::string_view bytes);
  // "/proc/self/fd/N": readable by path for as long as the process runs.
  const std::string& path() const { return path_; }

 private:
  InputFile();
  int fd_ = -1;
  std::string path_;
};

}  // namespace torchscan::fuzz
