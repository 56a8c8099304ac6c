#include "core/number_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace torchscan {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FormatSeconds, PicksTheUnitThatKeepsFourSignificantDigits) {
  EXPECT_EQ(FormatSeconds(2.17e-4), "217.0 µs");
  EXPECT_EQ(FormatSeconds(1.234e-3), "1.234 ms");
  EXPECT_EQ(FormatSeconds(12e-9), "12.00 ns");
  EXPECT_EQ(FormatSeconds(0.5e-9), "0.5000 ns");
  EXPECT_EQ(FormatSeconds(2.5), "2.500 s");
  EXPECT_EQ(FormatSeconds(5000), "5000 s");
  EXPECT_EQ(FormatSeconds(0), "0 s");
  EXPECT_EQ(FormatSeconds(-5e-6), "-5.000 µs");
}

TEST(FormatSeconds, RoundingUpToTheNextUnitMovesToIt) {
  EXPECT_EQ(FormatSeconds(999.96e-6), "1.000 ms");
  EXPECT_EQ(FormatSeconds(999.94e-6), "999.9 µs");
}

TEST(FormatSeconds, NonFiniteValuesAreNamed) {
  EXPECT_EQ(FormatSeconds(kNaN), "NaN");
  EXPECT_EQ(FormatSeconds(kInf), "Infinity");
  EXPECT_EQ(FormatSeconds(-kInf), "-Infinity");
}

TEST(FormatBytes, UsesPowersOf1024AndWholeBytesBelowOneKiB) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(32780), "32.01 KiB");
  EXPECT_EQ(FormatBytes(412.5 * 1024 * 1024), "412.5 MiB");
  EXPECT_EQ(FormatBytes(24.0 * (1 << 30)), "24.00 GiB");
  EXPECT_EQ(FormatBytes(kNaN), "NaN");
}

TEST(FormatSi, SymbolUnitsTakeThePrefixWordUnitsKeepItApart) {
  EXPECT_EQ(FormatSi(2.667e6, "samples/s"), "2.667 M samples/s");
  EXPECT_EQ(FormatSi(1048576, "FLOP"), "1.049 MFLOP");
  EXPECT_EQ(FormatSi(950, "FLOP"), "950.0 FLOP");
  EXPECT_EQ(FormatSi(0.5, "tokens/s"), "0.5 tokens/s");
  EXPECT_EQ(FormatSi(0, "FLOP"), "0 FLOP");
  EXPECT_EQ(FormatSi(1500, ""), "1.500 k");
}

TEST(FormatMetric, ChoosesByUnitAndSignsOnRequest) {
  EXPECT_EQ(FormatMetric(2e-6, "s"), "2.000 µs");
  EXPECT_EQ(FormatMetric(2048, "bytes"), "2.000 KiB");
  EXPECT_EQ(FormatMetric(3e9, "FLOP"), "3.000 GFLOP");
  EXPECT_EQ(FormatSignedMetric(-5e-6, "s"), "-5.000 µs");
  EXPECT_EQ(FormatSignedMetric(244, "bytes"), "+244 B");
  EXPECT_EQ(FormatSignedMetric(0, "FLOP"), "+0 FLOP");
  EXPECT_EQ(FormatSignedMetric(kNaN, "s"), "NaN");
}

TEST(FormatPercentRatioProbability, ReadableSignedAndShort) {
  EXPECT_EQ(FormatPercent(-5.0 / 12.0), "-41.7%");
  EXPECT_EQ(FormatPercent(0.005), "+0.50%");
  EXPECT_EQ(FormatRatio(7.0 / 12.0), "0.583×");
  EXPECT_EQ(FormatProbability(0.000183), "0.00018");
  EXPECT_EQ(FormatProbability(3.66e-5), "3.7e-05");
  EXPECT_EQ(FormatProbability(0.5), "0.5");
  EXPECT_EQ(FormatNumber(32), "32");
  EXPECT_EQ(FormatNumber(kInf), "Infinity");
}

TEST(FormatCount, GroupsThousands) {
  EXPECT_EQ(FormatCount(0), "0");
  EXPECT_EQ(FormatCount(999), "999");
  EXPECT_EQ(FormatCount(10000), "10,000");
  EXPECT_EQ(FormatCount(-1234567), "-1,234,567");
  EXPECT_EQ(FormatCount(std::numeric_limits<int64_t>::min()), "-9,223,372,036,854,775,808");
}

TEST(FormatAmount, WholeAmountsAreCountedOthersUseSiPrefixes) {
  EXPECT_EQ(FormatAmount(32, "samples"), "32 samples");
  EXPECT_EQ(FormatAmount(1e6, "tokens"), "1,000,000 tokens");
  EXPECT_EQ(FormatAmount(0.5, "samples"), "0.5 samples");
  EXPECT_EQ(FormatAmount(2500000.5, "samples"), "2.500 M samples");
  EXPECT_EQ(FormatAmount(1e15, "samples"), "1.000 P samples");
  EXPECT_EQ(FormatAmount(7, ""), "7");
  EXPECT_EQ(FormatAmount(kNaN, "samples"), "NaN");
}

TEST(ShortestDouble, RoundTripsWithTheFewestDigits) {
  EXPECT_EQ(ShortestDouble(0.0012), "0.0012");
  EXPECT_EQ(ShortestDouble(1e-7), "1e-07");
  EXPECT_EQ(ShortestDouble(211000), "211000");
  EXPECT_EQ(ShortestDouble(kNaN), "NaN");
  EXPECT_EQ(std::stod(ShortestDouble(0.1 + 0.2)), 0.1 + 0.2);
}

}  // namespace
}  // namespace torchscan
