#include "passes/instruction_protocol.h"

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace torchscan::passes {
namespace {

constexpr absl::string_view kPrefix = "torchscan_instruction_child ";
constexpr const char* kFields[] = {"calls", "repeats", "warmup", "intra_op_threads", "inter_op_threads"};

}  // namespace

std::string EmptyLoopLabel(int repeat) { return absl::StrCat("empty ", repeat); }
std::string CallsLoopLabel(int repeat) { return absl::StrCat("calls ", repeat); }

std::string FormatInstructionChildLine(const InstructionChildResult& r) {
  return absl::StrCat(kPrefix, "calls=", r.calls, " repeats=", r.repeats, " warmup=", r.warmup,
                      " intra_op_threads=", r.intra_op_threads, " inter_op_threads=", r.inter_op_threads);
}

std::optional<InstructionChildResult> ParseInstructionChildOutput(absl::string_view stdout_text) {
  std::optional<InstructionChildResult> last;
  for (absl::string_view line : absl::StrSplit(stdout_text, '\n')) {
    line = absl::StripTrailingAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, kPrefix)) continue;
    std::map<std::string, int64_t> values;
    for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
      const std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(field, absl::MaxSplits('=', 1));
      int64_t value = 0;
      if (absl::SimpleAtoi(kv.second, &value) && value >= 0) values[std::string(kv.first)] = value;
    }
    bool all = true;
    for (const char* name : kFields) all = all && values.count(name) > 0;
    if (all)
      last = InstructionChildResult{values["calls"], values["repeats"], values["warmup"], values["intra_op_threads"],
                                    values["inter_op_threads"]};
  }
  return last;
}

}  // namespace torchscan::passes
