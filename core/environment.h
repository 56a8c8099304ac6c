// Capture of the machine a benchmark runs on (no LibTorch, no gRPC): host, OS, CPU,
// memory, frequency settings, load, build, time and affinity. The LibTorch-facing fields
// (libtorch_*, blas_library, cuda_*, device_name) are filled by experiment/torch_environment.h.
//
// Rule for every field: a value that cannot be read is the string kUnknown (strings) or
// left unset (optional numbers); nothing is guessed. The file formats are parsed by the
// pure functions below, which take the file's text and never touch the machine.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "proto/report.pb.h"

namespace torchscan {

// The string recorded for a value that could not be read.
inline constexpr const char* kUnknown = "unknown";

// Fills hostname, os, kernel, cpu_model, logical_cores, physical_cores, memory_bytes,
// cpu_governor, turbo, load_average_{1,5,15}m, compiler, build_type, torchscan_version,
// captured_at and cpu_affinity from the running machine and process. Never fails: each
// field that cannot be read is kUnknown or unset. The LibTorch fields stay empty.
v1::Environment CaptureEnvironment();

// ------------------------------------------------------------------ pure parsers

// What /proc/cpuinfo says about the CPUs.
struct CpuInfo {
  // The first of these keys found, in this order of preference: "model name" (x86 and
  // some ARM kernels), "Processor" (32-bit ARM), "cpu model" (MIPS), "cpu" (POWER).
  // kUnknown when none has a non-empty value (e.g. arm64 kernels, which print only the
  // implementer and part numbers).
  std::string model = kUnknown;
  // Number of "processor" entries; unset when there are none.
  std::optional<int> logical_cores;
  // Number of distinct ("physical id", "core id") pairs; unset unless every processor
  // entry carries both keys as integers.
  std::optional<int> physical_cores;
};

// Parses the text of /proc/cpuinfo: blocks of "key<tabs>: value" lines, one block per
// logical CPU, each starting with "processor". Empty or malformed text gives the
// defaults above (model kUnknown, counts unset).
CpuInfo ParseCpuInfo(std::string_view cpuinfo);

// The number of distinct (package id, core id) pairs, i.e. physical cores; unset for an
// empty list. Used for /sys/devices/system/cpu/cpu*/topology when /proc/cpuinfo has no ids.
std::optional<int> CountPhysicalCores(const std::vector<std::pair<int, int>>& package_core_ids);

// PRETTY_NAME from the text of an os-release file (lines KEY=VALUE, values optionally in
// double or single quotes, backslash escapes allowed inside double quotes; the last
// assignment wins). kUnknown when the key is missing, its value is empty, or its quotes
// are unbalanced.
std::string ParseOsRelease(std::string_view os_release);

// MemTotal from the text of /proc/meminfo ("MemTotal:  24684092 kB") in bytes. Unset when
// the line is missing, its number is not a non-negative integer, its unit is not "kB",
// or the byte count would overflow int64.
std::optional<int64_t> ParseMemTotal(std::string_view meminfo);

// The content of a one-word sysfs file (e.g. scaling_governor) without surrounding
// whitespace; kUnknown when the file could not be read (nullopt) or holds only whitespace.
std::string ParseSysfsWord(const std::optional<std::string>& text);

// "enabled", "disabled" or kUnknown from the text of
// /sys/devices/system/cpu/intel_pstate/no_turbo ("0": enabled, "1": disabled) or, when
// that is unreadable (nullopt) or holds anything else, /sys/devices/system/cpu/cpufreq/boost
// ("1": enabled, "0": disabled).
std::string ParseTurbo(const std::optional<std::string>& intel_no_turbo,
                       const std::optional<std::string>& cpufreq_boost);

// A compact CPU list in the kernel's cpulist style: sorted, duplicates removed, runs of
// two or more consecutive CPUs as "first-last", joined by commas, e.g. {4, 0, 1} -> "0-1,4".
// Negative numbers are ignored; an empty list gives kUnknown.
std::string FormatCpuList(std::vector<int> cpus);

// The path of the BLAS library mapped in a process, from the text of /proc/<pid>/maps
// (lines "address perms offset dev inode [pathname]"). Candidates are mapped files whose
// file name contains "blas" or "mkl" (case-insensitive); a file name starting with
// "libblas" (the generic BLAS interface LibTorch links, which Debian's alternatives point at
// the reference BLAS or OpenBLAS) is preferred, otherwise the first candidate in map order.
// The path is returned as written there (not resolved); kUnknown when there is no candidate.
std::string FindBlasLibrary(std::string_view proc_maps);

// The BLAS linked into LibTorch itself, from at::show_config()'s text, for a LibTorch that maps
// no BLAS file of its own (PyPI's wheels link MKL statically): "MKL 2024.2 (linked into LibTorch,
// BLAS_INFO=mkl)" from "Intel(R) oneAPI Math Kernel Library Version 2024.2-Product Build ..." and
// "BLAS_INFO=mkl"; "<name> (linked into LibTorch, BLAS_INFO=<name>)" for another BLAS_INFO;
// kUnknown when the text has no BLAS_INFO.
std::string BuiltInBlas(std::string_view show_config);

// ------------------------------------------------------------------ build facts

// The compiler that built TorchScan: "gcc <__VERSION__>", "clang <__clang_version__>",
// or kUnknown for other compilers.
std::string CompilerDescription();

// "optimized" when this library was compiled with NDEBUG, else "debug".
std::string BuildType();

}  // namespace torchscan
