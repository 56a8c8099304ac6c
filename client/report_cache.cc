#include "client/report_cache.h"

#include <filesystem>
#include <system_error>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "io/file_io.h"

namespace torchscan {

std::string ReportCacheOwner(const std::string& address, const v1::DaemonInfo* info) {
  return absl::StrCat("address ", address, "\nstate_dir ", info != nullptr ? info->config().state_dir() : "", "\n");
}

absl::Status ClaimReportCache(const std::string& reports_dir, const std::string& owner, bool* cleared) {
  namespace fs = std::filesystem;
  const std::string owner_path = reports_dir + "/" + kReportCacheOwnerFile;
  *cleared = false;
  absl::StatusOr<std::string> recorded = ReadFile(owner_path);
  if (recorded.ok() && *recorded == owner) return absl::OkStatus();
  std::error_code ec;
  fs::remove(owner_path, ec);  // a missing file is no error; a stale one must not outlive the pages
  if (ec) return absl::InvalidArgumentError(absl::StrCat("--output: cannot remove ", owner_path, ": ", ec.message()));
  for (fs::directory_iterator it(reports_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if (!it->is_regular_file() || (ext != ".json" && ext != ".html")) continue;
    std::error_code removed;
    fs::remove(it->path(), removed);
    if (removed)
      return absl::InvalidArgumentError(
          absl::StrCat("--output: cannot remove the report page ", it->path().string(), ": ", removed.message()));
    *cleared = true;
  }
  if (ec) return absl::InvalidArgumentError(absl::StrCat("--output: cannot list ", reports_dir, ": ", ec.message()));
  if (absl::Status s = WriteFileAtomic(owner_path, owner); !s.ok())
    return absl::InvalidArgumentError(absl::StrCat("--output: ", s.message()));
  return absl::OkStatus();
}

}  // namespace torchscan
