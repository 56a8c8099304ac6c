#include "client/multi_daemon.h"

#include <gtest/gtest.h>

namespace torchscan {
namespace {

TEST(MachineFolderName, HostNamesBecomeSafeUniqueFolders) {
  std::vector<std::string> taken;
  EXPECT_EQ(MachineFolderName("gpu-01.lab", "gpu-01.lab:7411", &taken), "gpu-01.lab");
  EXPECT_EQ(MachineFolderName("gpu-01.lab", "10.0.0.2:7411", &taken), "gpu-01.lab-2");
  EXPECT_EQ(MachineFolderName("", "unix:/run/torchscand/torchscand.sock", &taken),
            "unix__run_torchscand_torchscand.sock");
  EXPECT_EQ(MachineFolderName("../../etc", "x", &taken), ".._.._etc");  // never a path
  EXPECT_EQ(MachineFolderName("..", "x", &taken), "machine");
  EXPECT_EQ(MachineFolderName("", "", &taken), "machine-2");
}

}  // namespace
}  // namespace torchscan
