// LocalCaller over this machine's real accounts: root, nobody (uid 65534, group nogroup
// 65534, both in every Debian) and a uid nobody has.
#include "daemon/local_caller.h"

#include <gtest/gtest.h>

namespace torchscan::daemon {
namespace {

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;
constexpr uid_t kUnknown = 3999999;  // no passwd entry
constexpr gid_t kOtherGroup = 3999998;

TEST(LocalCaller, IsTheLoginNameOrTheUidNumber) {
  EXPECT_EQ(LoginName(0), "root");
  EXPECT_EQ(LoginName(kNobody), "nobody");
  EXPECT_EQ(LoginName(kUnknown), "3999999");
  const Caller caller = LocalCaller(PeerCredentials{1, kNobody, kNogroup}, std::nullopt);
  EXPECT_EQ(caller.user, "nobody");
  EXPECT_FALSE(caller.admin);
  EXPECT_TRUE(caller.on_socket);
}

TEST(LocalCaller, RootIsAlwaysAnAdmin) {
  EXPECT_TRUE(IsLocalAdmin(PeerCredentials{1, 0, 0}, std::nullopt));
  EXPECT_TRUE(IsLocalAdmin(PeerCredentials{1, 0, 0}, kOtherGroup));
  EXPECT_TRUE(LocalCaller(PeerCredentials{1, 0, 0}, std::nullopt).admin);
}

TEST(LocalCaller, OthersOnlyThroughTheAdminGroup) {
  const PeerCredentials nobody{1, kNobody, kNogroup};
  EXPECT_FALSE(IsLocalAdmin(nobody, std::nullopt));  // no admin_group: only root
  EXPECT_FALSE(IsLocalAdmin(nobody, kOtherGroup));   // not a member
  EXPECT_TRUE(IsLocalAdmin(nobody, kNogroup));       // the group it connected with
  // The primary group of its login, while it connected with another group.
  EXPECT_TRUE(IsLocalAdmin(PeerCredentials{1, kNobody, kOtherGroup}, kNogroup));
  // The group the process connected with counts, even for a uid without a login.
  EXPECT_TRUE(IsLocalAdmin(PeerCredentials{1, kUnknown, kOtherGroup}, kOtherGroup));
  EXPECT_FALSE(IsLocalAdmin(PeerCredentials{1, kUnknown, kNogroup}, kOtherGroup));
}

}  // namespace
}  // namespace torchscan::daemon
