// Command-line pieces the small benchmarks share. Every benchmark the README lists takes
// --quick: tiny settings, so that //tests:readme_benchmarks_test can run each README command
// as written in seconds and none can rot. Figures from a quick run mean little; each
// benchmark's header says what it shrinks.
#pragma once

#include <optional>

namespace torchscan::benchmarks {

// Removes every "--quick" from argv[1..argc) (updating *argc, the order of the rest kept) and
// returns whether there was one. Other arguments are left for the caller to parse.
bool TakeQuickFlag(int* argc, char** argv);

// `text` as a whole decimal integer >= 1 (at most INT_MAX); nullopt for anything else
// ("", "3x", "-1", "--bogus"), so that a mistyped argument is refused, not read as 0.
std::optional<int> PositiveInt(const char* text);

}  // namespace torchscan::benchmarks
