#include "report/machine_key.h"

#include <gtest/gtest.h>

namespace torchscan::report {
namespace {

v1::Environment Lab() {
  v1::Environment e;
  e.set_hostname("lab-1");
  e.set_os("Debian GNU/Linux 12 (bookworm)");
  e.set_kernel("Linux 6.1.0-18-amd64 x86_64");
  e.set_cpu_model("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
  e.set_logical_cores(8);
  e.set_physical_cores(4);
  e.set_memory_bytes(16LL * 1024 * 1024 * 1024);
  e.set_cpu_governor("performance");
  e.set_turbo("disabled");
  e.set_load_average_1m(0.5);
  e.set_torchscan_version("0.1.0");
  e.set_libtorch_version("2.1.0");
  e.set_blas_library("/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.21.so");
  e.set_device_name("Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
  e.set_captured_at("2026-12-01T08:00:00Z");
  e.set_cpu_affinity("0-3");
  return e;
}

TEST(MachineKey, NamesEachFieldInOrder) {
  EXPECT_EQ(MachineKey(Lab()),
            "cpu=Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz; cores=8 logical, 4 physical; memory=16.0 GiB; "
            "os=Debian GNU/Linux 12 (bookworm); kernel=Linux 6.1.0-18-amd64 x86_64; governor=performance; "
            "turbo=disabled; affinity=0-3; libtorch=2.1.0; blas=libopenblasp-r0.3.21.so; torchscan=0.1.0; "
            "device=Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
}

TEST(MachineKey, UnknownWhereNothingWasCaptured) {
  EXPECT_EQ(MachineKey(v1::Environment()),
            "cpu=unknown; cores=unknown logical, unknown physical; memory=unknown; os=unknown; kernel=unknown; "
            "governor=unknown; turbo=unknown; affinity=unknown; libtorch=unknown; blas=unknown; torchscan=unknown; "
            "device=unknown");
}

TEST(MachineKey, HostnameLoadAndCaptureTimeDoNotMatter) {
  v1::Environment other = Lab();
  other.set_hostname("lab-2");
  other.set_load_average_1m(3.0);
  other.set_load_average_15m(2.0);
  other.set_captured_at("2026-12-02T09:00:00Z");
  EXPECT_EQ(MachineKey(other), MachineKey(Lab()));
}

TEST(MachineKey, SeparatorsAndBackslashesAreEscapedControlCharactersBlanked) {
  v1::Environment e;
  e.set_cpu_model("a;b\\c=d\ne");
  EXPECT_EQ(MachineKey(e).substr(0, 17), "cpu=a\\;b\\\\c=d e; ");
  v1::Environment f = e;
  f.set_cpu_model("plain");
  EXPECT_EQ(MachineKeyChanges(MachineKey(e), MachineKey(f)), std::vector<std::string>{"CPU: a;b\\c=d e -> plain"});
}

TEST(MachineKeyChanges, NamesEachChangedField) {
  v1::Environment after = Lab();
  after.set_blas_library("/opt/intel/mkl/lib/libmkl_rt.so");
  after.set_libtorch_version("2.2.0");
  after.set_memory_bytes(32LL * 1024 * 1024 * 1024);
  after.set_hostname("lab-2");
  EXPECT_EQ(MachineKeyChanges(MachineKey(Lab()), MachineKey(after)),
            (std::vector<std::string>{"memory: 16.0 GiB -> 32.0 GiB", "LibTorch: 2.1.0 -> 2.2.0",
                                      "BLAS: libopenblasp-r0.3.21.so -> libmkl_rt.so"}));
}

TEST(MachineKeyChanges, NoneForEqualOrEmptyKeys) {
  EXPECT_TRUE(MachineKeyChanges(MachineKey(Lab()), MachineKey(Lab())).empty());
  EXPECT_TRUE(MachineKeyChanges("", MachineKey(Lab())).empty());
  EXPECT_TRUE(MachineKeyChanges(MachineKey(Lab()), "").empty());
}

TEST(MachineKeyChanges, FieldsOnlyOneSideHasAndUnknownFields) {
  EXPECT_EQ(MachineKeyChanges("cpu=a; gpu=x", "cpu=a; npu=y; odd"),
            (std::vector<std::string>{"npu: (none) -> y", "odd: (none) -> ", "gpu: x -> (none)"}));
}

}  // namespace
}  // namespace torchscan::report
