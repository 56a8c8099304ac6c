#include "passes/callgrind_profile.h"

#include <map>
#include <unordered_map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace torchscan::passes {
namespace {

absl::Status LineError(int line, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("callgrind output, line ", line, ": ", what));
}

// Reads a cost line: `positions` position fields (numbers, "+n", "-n", "*", hex "0x..."), then
// up to events.size() event counts. false when a field is not a number.
bool ReadCosts(absl::string_view line, size_t positions, size_t events, std::vector<int64_t>* costs) {
  costs->assign(events, 0);
  size_t field = 0;
  for (absl::string_view word : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    if (field < positions) {
      ++field;
      continue;  // positions (line or instruction address) are not needed for per-function costs
    }
    const size_t event = field++ - positions;
    if (event >= events) return false;
    int64_t value = 0;
    if (!absl::SimpleAtoi(word, &value)) return false;
    (*costs)[event] = value;
  }
  return field >= positions;
}

void Add(std::vector<int64_t>* to, const std::vector<int64_t>& costs) {
  for (size_t i = 0; i < costs.size(); ++i) (*to)[i] += costs[i];
}

// Names in `key=(id) name`, `key=(id)` or `key=name` form, per kind of key (callgrind numbers
// functions, files and objects separately).
class Names {
 public:
  // The name `value` stands for; false when it refers to an id never defined.
  bool Resolve(absl::string_view value, std::string* name) {
    value = absl::StripAsciiWhitespace(value);
    if (!absl::StartsWith(value, "(")) {
      *name = std::string(value);
      return true;
    }
    const size_t close = value.find(')');
    if (close == absl::string_view::npos) return false;
    const std::string id(value.substr(1, close - 1));
    absl::string_view rest = absl::StripAsciiWhitespace(value.substr(close + 1));
    if (!rest.empty()) {
      names_[id] = std::string(rest);
      *name = std::string(rest);
      return true;
    }
    auto it = names_.find(id);
    if (it == names_.end()) return false;
    *name = it->second;
    return true;
  }

 private:
  std::unordered_map<std::string, std::string> names_;
};

}  // namespace

int CallgrindProfile::EventIndex(absl::string_view event) const {
  for (size_t i = 0; i < events.size(); ++i)
    if (events[i] == event) return static_cast<int>(i);
  return -1;
}

int64_t CallgrindProfile::Total(absl::string_view event) const {
  const int i = EventIndex(event);
  return i < 0 || static_cast<size_t>(i) >= totals.size() ? 0 : totals[i];
}

absl::StatusOr<CallgrindProfile> ParseCallgrind(absl::string_view text) {
  CallgrindProfile profile;
  Names function_names;
  std::map<std::string, size_t> index;  // function name -> functions[index]
  size_t positions = 1;
  std::vector<int64_t> summed, costs;
  long current = -1;            // the function whose lines these are
  std::string callee;           // the cfn= of the next calls= line
  bool call_cost_next = false;  // the next cost line is a call's
  bool call_to_self = false;
  int number = 0;
  const auto function = [&](const std::string& name) {
    auto [it, added] = index.emplace(name, profile.functions.size());
    if (added)
      profile.functions.push_back(
          {name, std::vector<int64_t>(profile.events.size()), std::vector<int64_t>(profile.events.size())});
    return static_cast<long>(it->second);
  };
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    line = absl::StripTrailingAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    const char c = line[0];
    if (absl::ascii_isdigit(c) || c == '+' || c == '-' || c == '*') {
      if (profile.events.empty()) return LineError(number, "a cost line before the `events:` line");
      if (!ReadCosts(line, positions, profile.events.size(), &costs))
        return LineError(number, "not a cost line: \"" + std::string(line.substr(0, 80)) + "\"");
      if (current < 0) return LineError(number, "a cost line before any `fn=` line");
      CallgrindFunction& f = profile.functions[current];
      if (call_cost_next) {
        if (!call_to_self) Add(&f.inclusive, costs);
        call_cost_next = false;
      } else {
        Add(&f.self, costs);
        Add(&f.inclusive, costs);
        Add(&summed, costs);
      }
      continue;
    }
    const std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(line, absl::MaxSplits('=', 1));
    const absl::string_view key = kv.first, value = kv.second;
    std::string name;
    if (key == "fn") {
      if (!function_names.Resolve(value, &name)) return LineError(number, "fn= names an undefined id");
      current = function(name);
    } else if (key == "cfn" || key == "cfni") {
      if (!function_names.Resolve(value, &callee)) return LineError(number, "cfn= names an undefined id");
    } else if (key == "calls") {
      call_cost_next = true;
      call_to_self = current >= 0 && callee == profile.functions[current].name;
    } else if (absl::StartsWith(line, "events:")) {
      profile.events = absl::StrSplit(absl::StripAsciiWhitespace(line.substr(7)), ' ', absl::SkipEmpty());
      summed.assign(profile.events.size(), 0);
    } else if (absl::StartsWith(line, "positions:")) {
      positions = std::vector<std::string>(absl::StrSplit(line.substr(10), ' ', absl::SkipEmpty())).size();
    } else if (absl::StartsWith(line, "summary:") || absl::StartsWith(line, "totals:")) {
      if (profile.totals.empty() &&
          !ReadCosts(line.substr(line.find(':') + 1), 0, profile.events.size(), &profile.totals))
        return LineError(number, "not a list of totals");
    } else if (absl::ConsumePrefix(&line, "creator:")) {
      profile.creator = std::string(absl::StripAsciiWhitespace(line));
    } else if (absl::ConsumePrefix(&line, "desc: Trigger:")) {
      profile.trigger = std::string(absl::StripAsciiWhitespace(line));
    }
    // ob=, fl=, fi=, fe=, cob=, cfi=, cfl=, jump=, jcnd= and other headers change nothing here.
  }
  if (profile.events.empty()) return LineError(number, "no `events:` line: not a callgrind dump");
  if (profile.totals.empty()) profile.totals = summed;
  return profile;
}

std::string ShortFunctionName(absl::string_view name) {
  absl::string_view s = absl::StripAsciiWhitespace(name);
  if (const size_t clone = s.find(" [clone"); clone != absl::string_view::npos) s = s.substr(0, clone);
  // callgrind's recursion depth mark ('2, '3 ...) with --separate-recs
  if (const size_t mark = s.rfind('\'');
      mark != absl::string_view::npos && mark + 1 < s.size() && absl::ascii_isdigit(s[mark + 1]))
    s = s.substr(0, mark);
  for (absl::string_view qualifier : {" const", " volatile", " &&", " &"}) absl::ConsumeSuffix(&s, qualifier);
  if (s.empty() || s.back() != ')') return std::string(s);
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i == 0 ? std::string(s) : std::string(s.substr(0, i));
  }
  return std::string(s);
}

}  // namespace torchscan::passes
