// The names of the entries of a zip archive held in memory, read from its central directory
// (zip64 included): enough to tell what a file saved by PyTorch holds before sending it
// anywhere. A TorchScript module (torch.jit.save) has "<archive>/code/..." entries; a tensor or
// a state_dict (torch.save) has "<archive>/data.pkl" and "<archive>/data/N" but no code.
// Reads no entry's contents; pure, never crashes on hostile bytes (every offset is checked).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace torchscan {

// Every entry's name in central-directory order; InvalidArgument ("not a zip archive: ...")
// when `bytes` has no end-of-central-directory record or its directory runs past the bytes.
absl::StatusOr<std::vector<std::string>> ZipEntryNames(std::string_view bytes);

}  // namespace torchscan
