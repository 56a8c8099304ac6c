// Numbers for people and for programs, shared by the comparison rules' messages (core/) and
// every renderer (report/). Pure functions, no I/O; each states what it does with NaN and
// infinities.
//
// Numbers for people use 4 significant digits in the largest unit that keeps the value at
// or above 1 ("217.0 µs", "1.234 ms", "12.00 ns"), ASCII '-' for negatives, and the strings
// "NaN", "Infinity" and "-Infinity" (the spelling of our JSON) for non-finite values.
// Numbers for programs (CSV, JSON) use ShortestDouble: the shortest text that reads back
// to the same double.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace torchscan {

// Seconds in ns, µs, ms or s: 2.17e-4 -> "217.0 µs"; 0 -> "0 s".
std::string FormatSeconds(double seconds);

// Bytes in B, KiB, MiB, GiB, TiB (powers of 1024): 32780 -> "32.01 KiB"; 512 -> "512 B".
std::string FormatBytes(double bytes);

// A value with an SI prefix and its unit: (2.667e6, "samples/s") -> "2.667 M samples/s";
// (950, "FLOP") -> "950.0 FLOP"; an empty unit gives just the number.
std::string FormatSi(double value, std::string_view unit);

// Chooses by unit: "s" -> FormatSeconds, "bytes"/"B" -> FormatBytes, otherwise FormatSi.
std::string FormatMetric(double value, std::string_view unit);

// Like FormatMetric with an explicit sign: "+1.234 ms", "-5.000 µs", "+0 s".
std::string FormatSignedMetric(double value, std::string_view unit);

// A fraction as a signed percentage: -0.4167 -> "-41.7%"; |x| < 1% keeps two decimals.
std::string FormatPercent(double fraction);

// A ratio: 0.5833 -> "0.583×".
std::string FormatRatio(double ratio);

// A probability: 0.000183 -> "0.00018"; values below 1e-4 in scientific notation.
std::string FormatProbability(double p);

// A plain number with up to 6 significant digits ("%.6g"), or the non-finite spellings.
std::string FormatNumber(double value);

// Thousands separators: 10000 -> "10,000".
std::string FormatCount(int64_t count);

// An amount of work and its unit: whole numbers below 1e15 with thousands separators
// ((1e6, "tokens") -> "1,000,000 tokens"), others by FormatSi ((0.5, "samples") ->
// "0.5 samples"); an empty unit gives just the number.
std::string FormatAmount(double value, std::string_view unit);

// Shortest round-trip decimal of a double ("0.0012", "1e-07"), or the non-finite spellings.
std::string ShortestDouble(double value);

}  // namespace torchscan
