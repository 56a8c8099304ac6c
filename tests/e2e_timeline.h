// Reading a job's phase timeline (proto/report.proto Timeline) in end-to-end tests: the spans
// of one phase or one kind of phase, where they begin and end, and the phases a client's
// plain progress lines announced.
#pragma once

#include <string>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan::e2e {

// The spans named `phase`, or whose name starts with `phase` and a space ("timing" matches
// "timing baseline" and "timing candidate"), in timeline order.
std::vector<v1::PhaseSpan> Spans(const v1::Timeline& timeline, const std::string& phase);

// Every span's name, in timeline order.
std::vector<std::string> PhaseNames(const v1::Timeline& timeline);

// The earliest start_s and the latest end_s of `spans`; NaN when `spans` is empty, so that
// any comparison with them fails.
double FirstStart(const std::vector<v1::PhaseSpan>& spans);
double LastEnd(const std::vector<v1::PhaseSpan>& spans);

// The sum of the spans' durations (end_s - start_s); 0 when empty.
double TotalSeconds(const std::vector<v1::PhaseSpan>& spans);

// The phases that a client's plain progress lines ("[ID] running: timing baseline, 5 blocks")
// announced, in order, each change once; without the daemon's own steps around the experiment
// ("starting worker", "write result").
std::vector<std::string> AnnouncedPhases(const std::string& client_stderr);

// True when `part` appears in `whole` in the same order (not necessarily adjacent).
bool IsSubsequence(const std::vector<std::string>& part, const std::vector<std::string>& whole);

}  // namespace torchscan::e2e
