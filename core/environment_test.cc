#include "core/environment.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <regex>

#include <gtest/gtest.h>

#include "core/version.h"

namespace torchscan {
namespace {

// Two x86 logical CPUs (hyper-threads of one core) on each of two packages.
constexpr std::string_view kTwoPackagesCpuInfo =
    "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6338\n"
    "physical id\t: 0\ncore id\t\t: 0\ncpu MHz\t\t: 2000.000\n\n"
    "processor\t: 1\nmodel name\t: Intel(R) Xeon(R) Gold 6338\nphysical id\t: 0\ncore id\t\t: 0\n\n"
    "processor\t: 2\nmodel name\t: Intel(R) Xeon(R) Gold 6338\nphysical id\t: 1\ncore id\t\t: 0\n\n"
    "processor\t: 3\nmodel name\t: Intel(R) Xeon(R) Gold 6338\nphysical id\t: 1\ncore id\t\t: 0\n";

TEST(ParseCpuInfo, X86CountsLogicalAndDistinctPackageCorePairs) {
  const CpuInfo info = ParseCpuInfo(kTwoPackagesCpuInfo);
  EXPECT_EQ(info.model, "Intel(R) Xeon(R) Gold 6338");
  EXPECT_EQ(info.logical_cores, 4);
  EXPECT_EQ(info.physical_cores, 2);
}

TEST(ParseCpuInfo, EmptyOrMalformedIsUnknown) {
  for (std::string_view text : {"", "\n\n", "garbage without colons\n", ": : :\n"}) {
    const CpuInfo info = ParseCpuInfo(text);
    EXPECT_EQ(info.model, "unknown") << text;
    EXPECT_FALSE(info.logical_cores.has_value()) << text;
    EXPECT_FALSE(info.physical_cores.has_value()) << text;
  }
}

TEST(ParseCpuInfo, Arm64HasNoModelAndNoCoreIds) {
  const CpuInfo info = ParseCpuInfo(
      "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n\n"
      "processor\t: 1\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n");
  EXPECT_EQ(info.model, "unknown");
  EXPECT_EQ(info.logical_cores, 2);
  EXPECT_FALSE(info.physical_cores.has_value());
}

TEST(ParseCpuInfo, OtherArchitectureModelKeys) {
  EXPECT_EQ(ParseCpuInfo("processor\t: 0\ncpu\t\t: POWER9, altivec supported\n").model, "POWER9, altivec supported");
  EXPECT_EQ(ParseCpuInfo("Processor\t: ARMv7 Processor rev 4 (v7l)\nprocessor\t: 0\n").model,
            "ARMv7 Processor rev 4 (v7l)");
  // "cpu MHz", "cpu family" and "cpu cores" are not the "cpu" key.
  EXPECT_EQ(ParseCpuInfo("processor\t: 0\ncpu family\t: 6\ncpu MHz\t\t: 2000\n").model, "unknown");
  // "model name" wins over the other keys wherever it appears.
  EXPECT_EQ(ParseCpuInfo("processor : 0\ncpu : generic\nmodel name : Specific\n").model, "Specific");
}

TEST(ParseCpuInfo, PhysicalCoresUnknownWhenAnyProcessorLacksIds) {
  const CpuInfo info = ParseCpuInfo("processor : 0\nphysical id : 0\ncore id : 0\n\nprocessor : 1\nphysical id : 0\n");
  EXPECT_EQ(info.logical_cores, 2);
  EXPECT_FALSE(info.physical_cores.has_value());
  EXPECT_FALSE(ParseCpuInfo("processor : 0\nphysical id : x\ncore id : 0\n").physical_cores.has_value());
}

TEST(CountPhysicalCores, DistinctPairs) {
  EXPECT_FALSE(CountPhysicalCores({}).has_value());
  EXPECT_EQ(CountPhysicalCores({{0, 0}, {0, 0}, {0, 1}, {1, 0}}), 3);
  EXPECT_EQ(CountPhysicalCores({{-1, 0}, {-1, 1}}), 2);
}

TEST(ParseOsRelease, QuotedPrettyName) {
  EXPECT_EQ(ParseOsRelease("NAME=\"Debian GNU/Linux\"\n"
                           "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"),
            "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(ParseOsRelease("PRETTY_NAME='Single quoted \\n kept'"), "Single quoted \\n kept");
  EXPECT_EQ(ParseOsRelease("PRETTY_NAME=\"Say \\\"hi\\\"\""), "Say \"hi\"");
  EXPECT_EQ(ParseOsRelease("PRETTY_NAME=Unquoted\r\n"), "Unquoted");
  EXPECT_EQ(ParseOsRelease("PRETTY_NAME=first\nPRETTY_NAME=second\n"), "second");
}

TEST(ParseOsRelease, MissingEmptyOrMalformedIsUnknown) {
  EXPECT_EQ(ParseOsRelease(""), "unknown");
  EXPECT_EQ(ParseOsRelease("NAME=Debian\n# PRETTY_NAME=\"commented\"\n"), "unknown");
  EXPECT_EQ(ParseOsRelease("PRETTY_NAME=\"\"\n"), "unknown");
  EXPECT_EQ(ParseOsRelease("PRETTY_NAME=\"unterminated\n"), "unknown");
  EXPECT_EQ(ParseOsRelease("XPRETTY_NAME=\"other key\"\n"), "unknown");
}

TEST(ParseMemTotal, KibibytesToBytes) {
  EXPECT_EQ(ParseMemTotal("MemTotal:       24684092 kB\nMemFree:        21769812 kB\n"), int64_t{24684092} * 1024);
  EXPECT_EQ(ParseMemTotal("MemFree: 1 kB\nMemTotal: 0 kB"), 0);
}

TEST(ParseMemTotal, MissingOrMalformedIsUnset) {
  for (std::string_view text :
       {"", "MemFree: 1 kB\n", "MemTotal:\n", "MemTotal: abc kB\n", "MemTotal: -5 kB\n", "MemTotal: 12 MB\n",
        "MemTotal: 12\n", "MemTotal: 12 kB extra\n", "MemTotal: 9223372036854775807 kB\n"}) {
    EXPECT_FALSE(ParseMemTotal(text).has_value()) << text;
  }
}

TEST(ParseSysfsWord, TrimsOrUnknown) {
  EXPECT_EQ(ParseSysfsWord(std::string("performance\n")), "performance");
  EXPECT_EQ(ParseSysfsWord(std::string(" \n")), "unknown");
  EXPECT_EQ(ParseSysfsWord(std::nullopt), "unknown");
}

TEST(ParseTurbo, IntelNoTurboIsInverted) {
  EXPECT_EQ(ParseTurbo(std::string("0\n"), std::nullopt), "enabled");
  EXPECT_EQ(ParseTurbo(std::string("1\n"), std::string("1\n")), "disabled");
}

TEST(ParseTurbo, FallsBackToCpufreqBoost) {
  EXPECT_EQ(ParseTurbo(std::nullopt, std::string("1\n")), "enabled");
  EXPECT_EQ(ParseTurbo(std::nullopt, std::string("0\n")), "disabled");
  EXPECT_EQ(ParseTurbo(std::string("garbage"), std::string("0")), "disabled");
}

TEST(ParseTurbo, UnreadableOrMalformedIsUnknown) {
  EXPECT_EQ(ParseTurbo(std::nullopt, std::nullopt), "unknown");
  EXPECT_EQ(ParseTurbo(std::string(""), std::string("2")), "unknown");
}

TEST(FormatCpuList, CompactsRuns) {
  EXPECT_EQ(FormatCpuList({0, 1, 4}), "0-1,4");
  EXPECT_EQ(FormatCpuList({4, 1, 0, 1}), "0-1,4");
  EXPECT_EQ(FormatCpuList({3}), "3");
  EXPECT_EQ(FormatCpuList({0, 2, 4}), "0,2,4");
  EXPECT_EQ(FormatCpuList({0, 1, 2, 3, 8, 9, 10, 12}), "0-3,8-10,12");
}

TEST(FormatCpuList, EmptyOrNegativeOnlyIsUnknown) {
  EXPECT_EQ(FormatCpuList({}), "unknown");
  EXPECT_EQ(FormatCpuList({-1}), "unknown");
  EXPECT_EQ(FormatCpuList({-1, 2}), "2");
}

TEST(BuiltInBlas, NamesMklAndItsVersionFromShowConfig) {
  constexpr char kConfig[] =
      "PyTorch built with:\n  - GCC 13.3\n  - Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build "
      "20240605 for Intel(R) 64 architecture applications\n  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release\n";
  EXPECT_EQ(BuiltInBlas(kConfig), "MKL 2024.2 (linked into LibTorch, BLAS_INFO=mkl)");
  EXPECT_EQ(BuiltInBlas("  - Build settings: BLAS_INFO=open, BUILD_TYPE=Release"),
            "open (linked into LibTorch, BLAS_INFO=open)");
  EXPECT_EQ(BuiltInBlas("BLAS_INFO=mkl"), "MKL (linked into LibTorch, BLAS_INFO=mkl)");
  EXPECT_EQ(BuiltInBlas("PyTorch built with:\n  - GCC 13.3\n"), kUnknown);
  EXPECT_EQ(BuiltInBlas("BLAS_INFO=, X=1"), kUnknown);
}

TEST(FindBlasLibrary, PrefersTheLibblasInterface) {
  constexpr std::string_view kMaps =
      "55d0c0a00000-55d0c0a01000 r--p 00000000 08:01 100 /usr/bin/test\n"
      "7f0000000000-7f0000001000 r--p 00000000 08:01 200 "
      "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so\n"
      "7f0000100000-7f0000101000 r-xp 00000000 08:01 201 "
      "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3\n"
      "7f0000200000-7f0000201000 rw-p 00000000 00:00 0 \n"
      "7ffd00000000-7ffd00001000 rw-p 00000000 00:00 0                          [stack]\n";
  EXPECT_EQ(FindBlasLibrary(kMaps), "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3");
}

TEST(FindBlasLibrary, OtherwiseFirstBlasOrMklFile) {
  EXPECT_EQ(FindBlasLibrary("1-2 r--p 0 08:01 3 /opt/lib/libtorch_cpu.so\n"
                            "1-2 r--p 0 08:01 4 /opt/intel/lib/libMKL_rt.so.2\n"
                            "1-2 r--p 0 08:01 5 /opt/lib/libopenblas.so.0\n"),
            "/opt/intel/lib/libMKL_rt.so.2");
  // Only the file name counts, and paths may hold spaces.
  EXPECT_EQ(FindBlasLibrary("1-2 r--p 0 08:01 3 /blas/libc.so.6\n"
                            "1-2 r--p 0 08:01 4 /my libs/libopenblas.so.0\n"),
            "/my libs/libopenblas.so.0");
}

TEST(FindBlasLibrary, NoneIsUnknown) {
  EXPECT_EQ(FindBlasLibrary(""), "unknown");
  EXPECT_EQ(FindBlasLibrary("1-2 r--p 0 00:00 0 [blas]\nnot a maps line\n"), "unknown");
}

TEST(BuildFacts, CompilerAndBuildType) {
  EXPECT_TRUE(CompilerDescription().rfind("gcc ", 0) == 0 || CompilerDescription().rfind("clang ", 0) == 0)
      << CompilerDescription();
#ifdef NDEBUG
  EXPECT_EQ(BuildType(), "optimized");
#else
  EXPECT_EQ(BuildType(), "debug");
#endif
}

// Smoke test on the running machine: fields that every Linux machine can provide are
// filled; the others are either a real value or "unknown", never empty.
TEST(CaptureEnvironment, FillsEveryOwnedField) {
  const v1::Environment env = CaptureEnvironment();
  for (const std::string* field :
       {&env.hostname(), &env.os(), &env.kernel(), &env.cpu_model(), &env.cpu_governor(), &env.turbo(), &env.compiler(),
        &env.build_type(), &env.torchscan_version(), &env.captured_at(), &env.cpu_affinity()}) {
    EXPECT_FALSE(field->empty());
  }
  EXPECT_TRUE(env.turbo() == "enabled" || env.turbo() == "disabled" || env.turbo() == "unknown");
  EXPECT_EQ(env.kernel().rfind("Linux ", 0), 0u) << env.kernel();
  EXPECT_TRUE(env.has_logical_cores());
  EXPECT_GE(env.logical_cores(), 1);
  // Physical cores may stay unset only where neither /proc/cpuinfo nor sysfs names core ids
  // (some VMs); where they are named, as on this machine kind, they must be counted.
  std::ifstream cpuinfo("/proc/cpuinfo");
  const std::string cpuinfo_text((std::istreambuf_iterator<char>(cpuinfo)), std::istreambuf_iterator<char>());
  const bool core_ids_named = cpuinfo_text.find("core id") != std::string::npos ||
                              std::filesystem::exists("/sys/devices/system/cpu/cpu0/topology/core_id");
  EXPECT_TRUE(env.has_physical_cores() || !core_ids_named) << "core ids are named here, yet no physical cores";
  if (env.has_physical_cores()) {
    EXPECT_LE(env.physical_cores(), env.logical_cores());
  }
  EXPECT_TRUE(env.has_memory_bytes());
  EXPECT_GT(env.memory_bytes(), 0);
  EXPECT_TRUE(env.has_load_average_1m());
  EXPECT_EQ(env.torchscan_version(), kTorchScanVersion);
  EXPECT_TRUE(std::regex_match(env.captured_at(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
      << env.captured_at();
  EXPECT_TRUE(std::regex_match(env.cpu_affinity(), std::regex(R"(\d+(-\d+)?(,\d+(-\d+)?)*)"))) << env.cpu_affinity();
  EXPECT_TRUE(env.libtorch_version().empty());  // owned by experiment/torch_environment.h
}

}  // namespace
}  // namespace torchscan
