// Replays seed files through a fuzz target's FuzzOne without libFuzzer, so that gcc's
// `bazel test` proves each target compiles and its corpus passes.
//
//   <replay test> DIR_OR_FILE...
//
// Every regular file found (directories are read one level deep, in name order) is run.
// A file named "valid-*" must be accepted and one named "invalid-*" rejected; any other
// name (e.g. "regression-*", an input libFuzzer once crashed on) only has to return.
// Exits 1 when an expectation fails or no file was found; a broken property aborts inside
// FuzzOne.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace {

namespace fs = std::filesystem;
using torchscan::fuzz::Verdict;

std::vector<fs::path> InputsOf(const std::vector<std::string>& args) {
  std::vector<fs::path> files;
  for (const std::string& arg : args) {
    if (fs::is_directory(arg)) {
      for (const fs::directory_entry& entry : fs::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else if (fs::is_regular_file(arg)) {
      files.emplace_back(arg);
    } else {
      std::fprintf(stderr, "%s: no such file or directory\n", arg.c_str());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool StartsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

int main(int argc, char** argv) {
  const std::vector<fs::path> files = InputsOf(std::vector<std::string>(argv + 1, argv + argc));
  if (files.empty()) {
    std::fprintf(stderr, "no corpus files found; usage: %s DIR_OR_FILE...\n", argv[0]);
    return 1;
  }
  int accepted = 0, rejected = 0, wrong = 0;
  for (const fs::path& file : files) {
    const Verdict verdict = torchscan::fuzz::FuzzOne(Contents(file));
    const bool ok = verdict == Verdict::kAccepted;
    (ok ? accepted : rejected) += 1;
    const std::string name = file.filename().string();
    const bool unexpected = (StartsWith(name, "valid-") && !ok) || (StartsWith(name, "invalid-") && ok);
    if (unexpected) ++wrong;
    std::printf("%-9s %s%s\n", ok ? "accepted" : "rejected", file.string().c_str(),
                unexpected ? "  <-- UNEXPECTED (the name says otherwise)" : "");
  }
  std::printf("replayed %zu inputs: %d accepted, %d rejected, %d unexpected\n", files.size(), accepted, rejected,
              wrong);
  return wrong == 0 ? 0 : 1;
}
