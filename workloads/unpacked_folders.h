// What AOTIModelPackageLoader leaves behind when it fails (LibTorch 2.11): it unpacks a package
// into a folder it makes with mkdtemp("/tmp/XXXXXX") (not $TMPDIR) and removes that folder only
// in its destructor, so a constructor that throws (a library that does not dlopen) leaves it. A
// sandboxed job's /tmp is its own and goes with the job; without a sandbox the folder would stay
// on the host, a package's size each time. No LibTorch.
#pragma once

#include <set>
#include <string>

namespace torchscan::workloads {

class UnpackedFolders {
 public:
  // The folders named as mkdtemp names them (six characters) directly in `root` now.
  static UnpackedFolders Before(const std::string& root = "/tmp");

  // Removes each such folder of `root` made since Before() (absent then, owned by this process's
  // user) that holds `entry`, a path inside the package as unpacked there
  // ("<archive>/data/aotinductor/model/<content hash>.wrapper.so"), so that only an unpacking of
  // this very package goes. Returns how many it removed; errors are ignored (best effort).
  int RemoveNewHolding(const std::string& entry) const;

 private:
  std::string root_;
  std::set<std::string> before_;
};

}  // namespace torchscan::workloads
