// One callgrind dump (valgrind's callgrind output format, version 1, as callgrind 3.19 writes
// it: compressed or plain names and positions, any number of events) read into per-function
// costs. Pure: no processes, no LibTorch.
//
// A function's self cost is the sum of its own cost lines; its inclusive cost adds the cost of
// each call it makes (the line after `calls=`), except calls to itself (recursion: their cost
// is already its own). Functions are keyed by name (callgrind's demangled name).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace torchscan::passes {

struct CallgrindFunction {
  std::string name;                // as callgrind wrote it, e.g. "at::native::add_out(at::Tensor const&, ...)"
  std::vector<int64_t> self;       // one value per event, in CallgrindProfile::events order
  std::vector<int64_t> inclusive;  // self plus the calls it made
};

struct CallgrindProfile {
  std::vector<std::string> events;  // e.g. "Ir", "Dr", "Dw", "I1mr" ... from the `events:` line
  std::vector<int64_t> totals;      // per event: the `summary:` (or `totals:`) line, else the summed self costs
  std::string creator;              // e.g. "callgrind-3.19.0" (`creator:`)
  std::string trigger;              // what dumped it, e.g. "Client Request: calls 1" (`desc: Trigger:`)
  std::vector<CallgrindFunction> functions;  // in order of first appearance

  // The index of `event` in `events`, or -1.
  int EventIndex(absl::string_view event) const;
  // totals[EventIndex(event)], 0 when the event is absent.
  int64_t Total(absl::string_view event) const;
};

// InvalidArgument naming the line (1-based) when `text` is not a callgrind dump: no `events:`
// line before the first cost, a cost line that is not numbers, a name reference `(id)` never
// defined.
absl::StatusOr<CallgrindProfile> ParseCallgrind(absl::string_view text);

// A demangled name without its parameter list, qualifiers after it, a clone suffix or
// callgrind's recursion mark: "ns::f(int, char const*) const [clone .isra.0]'2" -> "ns::f".
// Names that are not functions ("(below main)", "0x0000000000401000") are kept.
std::string ShortFunctionName(absl::string_view name);

}  // namespace torchscan::passes
