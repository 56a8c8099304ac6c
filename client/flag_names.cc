#include "client/flag_names.h"

#include <cctype>
#include <utility>
#include <vector>

namespace torchscan {
namespace {

// The end of a field path containing `fragment` at `at`: letters, digits and . _ [ ] go on.
size_t FieldEnd(const std::string& text, size_t at) {
  size_t end = at;
  while (end < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[end]);
    if (!(std::isalnum(c) || c == '_' || c == '.' || c == '[' || c == ']')) break;
    ++end;
  }
  while (end > at && text[end - 1] == '.') --end;  // a sentence's full stop is not part of the field
  return end;
}

// Fragment of a field path, and the flag that sets it; the more specific first.
const std::vector<std::pair<std::string, std::string>>& Table() {
  static const std::vector<std::pair<std::string, std::string>> table = {
      {"options.min_run_time_s", "--min-run-time"},
      {"options.intra_op_threads", "--threads"},
      {"options.rss", "--rss"},
      {"options.instructions", "--instructions"},
      {"spec.label", "--label"},
      {"spec.revision", "--revision"},
      {"spec.node", "--node"},
      {"compare.baseline.execution_mode", "--baseline-mode"},
      {"compare.candidate.execution_mode", "--candidate-mode"},
      {"workload.execution_mode", "--execution-mode"},
      {"compare.candidate.dtype", "--candidate-dtype"},
      {"workload.dtype", "--dtype"},
      {"torchscript.method", "--method"},
      {"model.torchscript", "--torchscript"},
      {"model.builtin", "--model"},
      {"input_metadata", "--metadata"},
      {"inputs", "--input/--input-file"},
      {"work_units", "--work-units"},
      {"work_unit", "--work-unit"},
      {"device", "--device"},
      {"compare.rounds", "--rounds"},
      {"calibrate.rounds", "--rounds"},
      {"calibrate.pairs", "--pairs"},
      {"declarative.rtol", "--rtol"},
      {"declarative.atol", "--atol"},
      {"compare_dtype", "--check-dtype"},
      {"check.torchscript", "--check-module"},
  };
  return table;
}

}  // namespace

std::string WithFlagNames(const std::string& message) {
  std::string text = message;
  // A compare's module that fails, named by its side ("candidate: model.torchscript..."), came
  // from that side's flag: --baseline / --candidate (with --torchscript both sides share one
  // file, and the baseline, built first, would fail first).
  for (const char* side : {"baseline", "candidate"}) {
    const std::string fragment = std::string(side) + ": model.torchscript";
    const size_t at = text.find(fragment);
    if (at == std::string::npos || !(at == 0 || (at >= 2 && text.compare(at - 2, 2, ": ") == 0))) continue;
    const size_t end = FieldEnd(text, at + fragment.size() - std::string("model.torchscript").size());
    if (text.compare(end, 4, " (--") != 0) text.insert(end, std::string(" (--") + side + ")");
  }
  std::vector<size_t> annotated;  // ends of fields already given a flag
  for (const auto& [fragment, flag] : Table()) {
    for (size_t at = text.find(fragment); at != std::string::npos; at = text.find(fragment, at + 1)) {
      // The fragment must be whole path segments: not "devices", not "max_work_units".
      const auto word = [&](size_t i) {
        return i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_');
      };
      if ((at > 0 && word(at - 1)) || word(at + fragment.size())) continue;
      const size_t end = FieldEnd(text, at);
      if (end < at + fragment.size()) continue;
      // A field path has a dot or an index: "the inputs do not fit" names no field.
      size_t start = at;
      while (start > 0 &&
             (word(start - 1) || text[start - 1] == '.' || text[start - 1] == '[' || text[start - 1] == ']'))
        --start;
      if (text.substr(start, end - start).find_first_of(".[") == std::string::npos) continue;
      bool done = false;
      for (size_t e : annotated) done |= e == end;
      if (done || text.compare(end, 4, " (--") == 0) break;
      const std::string note = " (" + flag + ")";
      text.insert(end, note);
      for (size_t& e : annotated)
        if (e > end) e += note.size();
      annotated.push_back(end);
      break;  // the first mention is enough
    }
  }
  return text;
}

}  // namespace torchscan
