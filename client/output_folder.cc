#include "client/output_folder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace torchscan {
namespace {

namespace fs = std::filesystem;

bool Exists(const std::string& path) {
  struct stat info;
  return ::lstat(path.c_str(), &info) == 0;
}

bool IsFolder(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

absl::Status NotWritable(const std::string& folder, const std::string& why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--output: ", why, folder, " is not writable by you; choose a folder you can write to"));
}

// The files of `files` that already exist in `folder`.
std::vector<std::string> Taken(const std::string& folder, const std::vector<std::string>& files) {
  std::vector<std::string> taken;
  for (const std::string& f : files)
    if (Exists(folder + "/" + f)) taken.push_back(folder + "/" + f);
  return taken;
}

}  // namespace

std::vector<std::string> EvidenceFiles(bool comparison) {
  const std::string stem = comparison ? "comparison" : "report";
  return {stem + ".json", stem + ".html"};
}

std::vector<std::string> CalibrationFiles() { return {"calibration.json", "calibration.html"}; }

absl::Status CheckOutputFolder(const std::string& dir, const std::vector<std::string>& files, bool force,
                               bool per_machine) {
  if (dir.empty()) return absl::InvalidArgumentError("--output: empty; give a folder");
  if (Exists(dir) && !IsFolder(dir))
    return absl::InvalidArgumentError(absl::StrCat("--output: ", dir,
                                                   " is a file, not a folder; give a folder (it is created when "
                                                   "missing), e.g. --output ",
                                                   dir, ".d"));
  if (!Exists(dir)) {
    // The nearest existing folder above `dir`, where it would be created.
    fs::path above = fs::path(dir).lexically_normal().parent_path();
    while (!above.empty() && !Exists(above.string())) above = above.parent_path();
    const std::string parent = above.empty() ? "." : above.string();
    if (!IsFolder(parent))
      return absl::InvalidArgumentError(absl::StrCat("--output: cannot create ", dir, ": ", parent,
                                                     " is a file, not a folder; choose another --output"));
    if (::access(parent.c_str(), W_OK | X_OK) != 0)
      return NotWritable(parent, absl::StrCat("cannot create ", dir, ": "));
    return absl::OkStatus();
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return NotWritable(dir, "");
  if (force) return absl::OkStatus();
  std::vector<std::string> taken = Taken(dir, files);
  if (per_machine) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (!entry.is_directory(ec)) continue;
      for (std::string& t : Taken(entry.path().string(), files)) taken.push_back(std::move(t));
    }
  }
  if (taken.empty()) return absl::OkStatus();
  return absl::AlreadyExistsError(
      absl::StrCat("--output: ", taken.front(), " already exists (from an earlier run",
                   taken.size() > 1 ? absl::StrCat(", with ", taken.size() - 1, " more") : "",
                   "); choose another folder, or add --force to replace it"));
}

absl::Status CheckCurrentFolderWritable() {
  if (::access(".", W_OK | X_OK) == 0) return absl::OkStatus();
  std::error_code ec;
  const std::string here = fs::current_path(ec).string();
  return absl::InvalidArgumentError(
      absl::StrCat("--output: without it the evidence goes to ./torchscan-<job id>/, but the current folder ", here,
                   " is not writable by you; give --output DIR"));
}

std::string DefaultOutputFolder(const std::string& job_id) {
  const std::string base = "./torchscan-" + job_id;
  std::string name = base;
  for (int n = 2; Exists(name); ++n) name = base + "-" + std::to_string(n);
  return name;
}

std::string DefaultHistoryFolder(const std::string& name) {
  std::string safe = name.substr(0, 100);
  for (char& c : safe)
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  return "./torchscan-history-" + safe;
}

std::string HistoryPageFile() { return "history.html"; }

}  // namespace torchscan
