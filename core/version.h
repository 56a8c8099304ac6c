// The TorchScan release this build is; recorded in every report's environment.
#pragma once

namespace torchscan {

// Semantic version of TorchScan. Bump it with every release.
inline constexpr const char* kTorchScanVersion = "0.1.0";

}  // namespace torchscan
