#include "workloads/unpacked_folders.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace torchscan::workloads {
namespace {

namespace fs = std::filesystem;

// The names of `root`'s folders that mkdtemp("XXXXXX") could have made.
std::set<std::string> SixCharacterFolders(const std::string& root) {
  std::set<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(root, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::error_code kind;
    if (name.size() == 6 && it->is_directory(kind) && !it->is_symlink(kind)) names.insert(name);
  }
  return names;
}

}  // namespace

UnpackedFolders UnpackedFolders::Before(const std::string& root) {
  UnpackedFolders folders;
  folders.root_ = root;
  folders.before_ = SixCharacterFolders(root);
  return folders;
}

int UnpackedFolders::RemoveNewHolding(const std::string& entry) const {
  if (entry.empty() || entry.find("..") != std::string::npos) return 0;
  int removed = 0;
  for (const std::string& name : SixCharacterFolders(root_)) {
    if (before_.count(name)) continue;
    const std::string folder = root_ + "/" + name;
    struct stat info;
    if (::lstat(folder.c_str(), &info) != 0 || info.st_uid != ::geteuid()) continue;
    std::error_code error;
    if (!fs::exists(fs::path(folder) / entry, error)) continue;
    if (fs::remove_all(folder, error) > 0 && !error) ++removed;
  }
  return removed;
}

}  // namespace torchscan::workloads
