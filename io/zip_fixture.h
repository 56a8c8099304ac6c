// Zip archives made in memory for tests: empty stored entries with the given names, laid
// out as a zip writer lays them out (local headers, central directory, optional zip64 end
// record and locator, end record, comment). What io/zip_names.h reads, without PyTorch.
#pragma once

#include <string>
#include <vector>

namespace torchscan {

std::string ZipOf(const std::vector<std::string>& names, bool zip64 = false, const std::string& comment = "");

// A zip archive shaped as torch.jit.save writes one ("m/data.pkl", "m/code/__torch__/m.py",
// "m/constants.pkl", "m/version"), and as torch.save writes a tensor ("x/data.pkl",
// "x/data/0", "x/version").
std::string TorchScriptZip();
std::string TorchSaveZip();
std::string AotInductorZip();      // torch._inductor.aoti_compile_and_package's entries
std::string ExportedProgramZip();  // torch.export.save's

}  // namespace torchscan
