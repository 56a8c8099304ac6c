#include "devices/gpu_pin.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace torchscan::devices {
namespace {

using Env = std::vector<std::string>;

TEST(PinEnvironment, GivesTheWorkerOnlyItsGpusInBusOrder) {
  EXPECT_EQ(PinEnvironment({1}, std::nullopt, std::nullopt),
            (Env{"CUDA_VISIBLE_DEVICES=1", "CUDA_DEVICE_ORDER=PCI_BUS_ID", "TORCHSCAN_PINNED_GPUS=1"}));
  EXPECT_EQ(PinEnvironment({0, 2}, std::nullopt, "FASTEST_FIRST"),
            (Env{"CUDA_VISIBLE_DEVICES=0,2", "TORCHSCAN_PINNED_GPUS=0,2"}));
}

TEST(PinEnvironment, NamesTheGpusAsTheDaemonsOwnListDoes) {
  EXPECT_EQ(PinEnvironment({1}, "4, 6", std::nullopt),
            (Env{"CUDA_VISIBLE_DEVICES=6", "CUDA_DEVICE_ORDER=PCI_BUS_ID", "TORCHSCAN_PINNED_GPUS=1"}));
  EXPECT_EQ(PinEnvironment({0}, "GPU-8f3a", "PCI_BUS_ID"),
            (Env{"CUDA_VISIBLE_DEVICES=GPU-8f3a", "TORCHSCAN_PINNED_GPUS=0"}));
}

TEST(LocalGpuIndex, IsThePositionAmongThePinnedGpus) {
  EXPECT_EQ(LocalGpuIndex(3, std::nullopt), 3);
  EXPECT_EQ(LocalGpuIndex(3, "3"), 0);
  EXPECT_EQ(LocalGpuIndex(3, "1,3"), 1);
  EXPECT_EQ(LocalGpuIndex(0, "1,3"), -1);
  EXPECT_EQ(LocalGpuIndex(0, ""), -1);
}

class NearCpuListTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = testing::TempDir() + "/near_cpus";
    std::filesystem::remove_all(root_);
    // Two GPUs, listed out of bus order on purpose: the driver's folder is read in bus order.
    for (const auto& [bus, cpus] : {std::pair{"0000:b1:00.0", "32-63"}, std::pair{"0000:3b:00.0", "0-31"}}) {
      std::filesystem::create_directories(root_ + "/driver/" + bus);
      std::filesystem::create_directories(root_ + "/pci/" + bus);
      std::ofstream(root_ + "/pci/" + bus + "/local_cpulist") << cpus << "\n";
    }
  }
  std::string Near(int gpu, const std::optional<std::string>& visible, const std::optional<std::string>& order) {
    return NearCpuList(gpu, visible, order, root_ + "/driver", root_ + "/pci");
  }
  std::string root_;
};

TEST_F(NearCpuListTest, ReadsTheGpusNumaNodeCpus) {
  EXPECT_EQ(Near(0, std::nullopt, std::nullopt), "0-31");
  EXPECT_EQ(Near(1, std::nullopt, "PCI_BUS_ID"), "32-63");
  EXPECT_EQ(Near(0, "1", std::nullopt), "32-63");
}

TEST_F(NearCpuListTest, IsUnknownWhenTheGpuCannotBePlaced) {
  EXPECT_EQ(Near(2, std::nullopt, std::nullopt), "");
  EXPECT_EQ(Near(0, "GPU-8f3a", std::nullopt), "");
  EXPECT_EQ(Near(0, std::nullopt, "FASTEST_FIRST"), "");
  EXPECT_EQ(NearCpuList(0, std::nullopt, std::nullopt, root_ + "/none", root_ + "/pci"), "");
}

}  // namespace
}  // namespace torchscan::devices
