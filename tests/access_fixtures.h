// Fixtures for end-to-end tests of access and identity, with real processes: throw-away TLS
// certificates (openssl), a free loopback port, a daemon placement whose workers can drop to
// `nobody`, and throw-away local accounts (root only) to run the client as. Failures are
// gtest failures (EXPECT/ASSERT).
#pragma once

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/e2e_support.h"

namespace torchscan::e2e {

// Writes `text` to `path` and sets its mode.
void WriteFile(const std::string& path, const std::string& text, mode_t mode);

// A loopback TCP port nobody listens on right now.
int FreePort();

// A CA, a server certificate for "localhost" and a client certificate, all made here.
struct Pki {
  std::string dir, ca, server_cert, server_key, client_cert, client_key, other_ca;
};

// Makes them in `dir` (openssl, two-day certificates).
Pki MakePki(const std::string& dir);

// Where a daemon that drops workers to "nobody" can run them: as root, the worker and RSS
// child are copied into an open folder under /tmp (runfiles live under /root, which is
// closed) and the daemon's state goes there too. Not root: the runfiles as they are.
struct Placement {
  std::string state_dir;
  std::vector<std::string> flags;
};

Placement OpenPlacement(const std::string& name);

// Throw-away local accounts (root only): groups made with groupadd, users with useradd, each
// user with a group of its own and a working folder <dir>/<name> it owns; all removed again
// by the destructor.
class LocalAccounts {
 public:
  explicit LocalAccounts(std::string dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    ::chmod(dir_.c_str(), 0755);
  }
  ~LocalAccounts() {
    for (const std::string& user : users_) e2e::Run("/usr/sbin/userdel", {user}, 60);
    for (const std::string& group : groups_) e2e::Run("/usr/sbin/groupdel", {group}, 60);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void AddGroup(const std::string& name) {
    const CommandResult r = e2e::Run("/usr/sbin/groupadd", {name}, 60);
    ASSERT_EQ(r.exit_code, 0) << "groupadd " << name << ": " << r.err;
    groups_.push_back(name);
  }

  // A user in `groups` (comma-separated) whose folder is home(name).
  void AddUser(const std::string& name, const std::string& groups) {
    const CommandResult r = e2e::Run("/usr/sbin/useradd",
                                     {"--no-create-home", "--user-group", "--shell", "/usr/sbin/nologin", "--groups",
                                      groups, "--home-dir", home(name), name},
                                     60);
    ASSERT_EQ(r.exit_code, 0) << "useradd " << name << ": " << r.err;
    users_.push_back(name);
    std::filesystem::create_directories(home(name));
    const passwd* account = ::getpwnam(name.c_str());
    ASSERT_NE(account, nullptr) << name;
    ASSERT_EQ(::chown(home(name).c_str(), account->pw_uid, account->pw_gid), 0);
    ::chmod(home(name).c_str(), 0700);
  }

  // A copy of `path` in `user`'s folder, owned by them, with `mode`; its new path.
  std::string GiveFile(const std::string& user, const std::string& path, mode_t mode) const {
    const std::string copy = home(user) + "/" + std::filesystem::path(path).filename().string();
    std::filesystem::copy_file(path, copy, std::filesystem::copy_options::overwrite_existing);
    const passwd* account = ::getpwnam(user.c_str());
    EXPECT_EQ(::chown(copy.c_str(), account->pw_uid, account->pw_gid), 0);
    ::chmod(copy.c_str(), mode);
    return copy;
  }

  // `program args...` as `user` (its uid, group and supplementary groups; setpriv from
  // util-linux), in its folder with HOME set to it.
  CommandResult RunAs(const std::string& user, const std::string& program, const std::vector<std::string>& args) const {
    std::vector<std::string> all = {"--reuid", user,           "--regid", user,       "--init-groups",
                                    "--",      "/usr/bin/env", "-C",      home(user), "HOME=" + home(user),
                                    program};
    all.insert(all.end(), args.begin(), args.end());
    return e2e::Run("/usr/bin/setpriv", all, 120);
  }

  std::string home(const std::string& user) const { return dir_ + "/" + user; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::vector<std::string> users_, groups_;
};

}  // namespace torchscan::e2e
