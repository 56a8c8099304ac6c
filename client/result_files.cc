#include "client/result_files.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "io/file_io.h"

namespace torchscan {
namespace {

// What a file that is not JSON seems to be, from its first bytes.
std::string NotJsonWhat(const std::string& text) {
  if (text.empty()) return "it is empty";
  if (text.rfind("PK\x03\x04", 0) == 0)
    return "it is a zip archive, such as a TorchScript module saved by torch.jit.save or a tensor saved by "
           "torch.save";
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '<') return "it is an HTML or XML page; take the .json beside it";
  const std::string head = text.substr(0, 512);
  const bool binary = std::any_of(head.begin(), head.end(), [](char c) {
    const unsigned char u = static_cast<unsigned char>(c);
    return u < 0x20 && c != '\n' && c != '\r' && c != '\t';
  });
  return binary ? "it holds binary data" : "it is text that is not a JSON object";
}

constexpr const char* kResultWriters = "measure, compare, example, jobs fetch or compare-reports";

absl::Status JobFileError(const std::string& command, const std::string& path) {
  return absl::InvalidArgumentError(absl::StrCat(command, ": ", path,
                                                 " is a job file (JobSpec), not a result: run it with "
                                                 "`torchscan-client measure --job ",
                                                 path, "` (or compare --job), then ", command,
                                                 " the result it writes"));
}

// The file's text when it looks like JSON of some kind; the not-JSON refusal otherwise.
absl::StatusOr<std::string> ReadJson(const std::string& command, const std::string& path, const std::string& takes,
                                     const std::string& module_hint, report::JsonKind* kind) {
  absl::StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return text.status();
  *kind = report::SniffJsonKind(*text);
  if (*kind != report::JsonKind::kNotJson) return text;
  const bool zip = text->rfind("PK\x03\x04", 0) == 0;
  return absl::InvalidArgumentError(
      absl::StrCat(command, ": ", path, " is not a ", takes, " JSON file (", NotJsonWhat(*text), "): ", command,
                   " takes the ", takes, " JSON that ", kResultWriters, " wrote", zip ? "; " + module_hint : ""));
}

}  // namespace

absl::StatusOr<report::Evidence> LoadEvidenceForRender(const std::string& path) {
  report::JsonKind kind;
  absl::StatusOr<std::string> text =
      ReadJson("render", path, "report or comparison",
               "to measure a module: torchscan-client measure --torchscript " + path + " --input SHAPE", &kind);
  if (!text.ok()) return text.status();
  if (kind == report::JsonKind::kJob) return JobFileError("render", path);
  return report::ParseEvidence(*text, path);
}

absl::StatusOr<v1::BenchmarkReport> LoadReportForCompare(const std::string& path) {
  report::JsonKind kind;
  absl::StatusOr<std::string> text = ReadJson(
      "compare-reports", path, "report",
      "to compare two modules: torchscan-client compare --baseline BEFORE.pt --candidate AFTER.pt --input SHAPE "
      "--rtol R --atol A",
      &kind);
  if (!text.ok()) return text.status();
  if (kind == report::JsonKind::kJob) return JobFileError("compare-reports", path);
  if (kind == report::JsonKind::kComparison)
    return absl::InvalidArgumentError(absl::StrCat(
        "compare-reports: ", path,
        " is a comparison, not a report: it already compares its two runs; show it with `torchscan-client render ",
        path, "`. compare-reports takes two report.json files, as measure writes them"));
  return report::ParseReport(*text, path);
}

}  // namespace torchscan
