#include "client/client_context.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

namespace torchscan {
namespace {

std::string Write(const std::string& name, const std::string& content, mode_t mode = 0600) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << content;
  ::chmod(path.c_str(), mode);
  return path;
}

// Sets (or unsets, for nullptr) an environment variable for one test.
class Env {
 public:
  Env(const char* name, const char* value) : name_(name) { value ? ::setenv(name, value, 1) : ::unsetenv(name); }
  ~Env() { ::unsetenv(name_); }

 private:
  const char* name_;
};

TEST(TokenFromText, TheBareTokenOrTheAdminsUserTokenLine) {
  EXPECT_EQ(*TokenFromText("s3cret\n", "f"), "s3cret");
  EXPECT_EQ(*TokenFromText("# mine\n\n  alice s3cret  \n", "f"), "s3cret");
  EXPECT_EQ(*TokenFromText("bob s3cret admin\n", "f"), "s3cret");
}

TEST(TokenFromText, OtherShapesAreRefusedSayingWhichWork) {
  absl::StatusOr<std::string> t = TokenFromText("\n# nothing\n", "--token-file f");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("--token-file f holds no token"), std::string::npos) << t.status();
  // The admin's whole file: whose token would be sent?
  t = TokenFromText("alice a1\nbob b2 admin\n", "--token-file f");
  EXPECT_NE(t.status().message().find("holds 2 token lines; keep only yours"), std::string::npos) << t.status();
  t = TokenFromText("alice a1 owner extra\n", "TORCHSCAN_TOKEN");
  EXPECT_NE(t.status().message().find("TORCHSCAN_TOKEN: its line has 4 words"), std::string::npos) << t.status();
  EXPECT_NE(t.status().message().find("`USER TOKEN`"), std::string::npos);
}

TEST(ResolveClientContext, ReadsTheTokenFileInEitherShape) {
  Env token("TORCHSCAN_TOKEN", nullptr);
  ClientContext ctx;
  ctx.token_file = Write("line", "alice s3cret\n");
  ASSERT_TRUE(ResolveClientContext(&ctx).ok());
  EXPECT_EQ(ctx.credentials.token, "s3cret");
  ClientContext open;
  open.token_file = Write("open", "s3cret\n", 0644);
  EXPECT_NE(ResolveClientContext(&open).message().find("readable by everyone"), std::string::npos);
}

TEST(ResolveClientContext, DaemonFlagsWinOverTorchscanDaemonWhichWinsOverThePrivateDaemon) {
  Env daemon("TORCHSCAN_DAEMON", " unix:/run/torchscand/torchscand.sock ");
  ClientContext from_env;
  ASSERT_TRUE(ResolveClientContext(&from_env).ok());
  EXPECT_EQ(from_env.daemons, std::vector<std::string>{"unix:/run/torchscand/torchscand.sock"});
  EXPECT_EQ(from_env.daemons_source, "TORCHSCAN_DAEMON");

  ClientContext flag;
  flag.daemons = {"bench1:50051"};
  ASSERT_TRUE(ResolveClientContext(&flag).ok());
  EXPECT_EQ(flag.daemons, std::vector<std::string>{"bench1:50051"});
  EXPECT_EQ(flag.daemons_source, "--daemon");

  ClientContext file;
  file.daemons_file = Write("daemons", "# lab\nbench2:50051\n");
  ASSERT_TRUE(ResolveClientContext(&file).ok());
  EXPECT_EQ(file.daemons, std::vector<std::string>{"bench2:50051"});
  EXPECT_EQ(file.daemons_source, "--daemons-file");

  Env empty("TORCHSCAN_DAEMON", "");
  ClientContext none;
  ASSERT_TRUE(ResolveClientContext(&none).ok());
  EXPECT_TRUE(none.daemons.empty());  // the private daemon
}

TEST(ConnectResident, WithoutADaemonSaysNoResidentDaemonWasGivenAndHowToGiveOne) {
  Env daemon("TORCHSCAN_DAEMON", nullptr);
  ClientContext ctx;
  ASSERT_TRUE(ResolveClientContext(&ctx).ok());
  absl::StatusOr<Connection> c = ConnectResident(ctx, "jobs list");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(c.status().message().find("jobs list: no resident daemon was given"), std::string::npos) << c.status();
  EXPECT_NE(c.status().message().find("--daemon"), std::string::npos);
  EXPECT_NE(c.status().message().find("TORCHSCAN_DAEMON"), std::string::npos);
}

TEST(IsUtf8Locale, TheFirstLocaleSetDecides) {
  EXPECT_TRUE(IsUtf8Locale(nullptr, nullptr, "C.UTF-8"));
  EXPECT_TRUE(IsUtf8Locale("", "en_US.utf8", "C"));
  EXPECT_FALSE(IsUtf8Locale("C", nullptr, "en_US.UTF-8"));  // LC_ALL wins over LANG
  EXPECT_FALSE(IsUtf8Locale(nullptr, nullptr, nullptr));
  EXPECT_FALSE(IsUtf8Locale("", "", "POSIX"));
}

}  // namespace
}  // namespace torchscan
