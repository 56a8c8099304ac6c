#include "daemon/token_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

namespace torchscan::daemon {
namespace {

const char* kAlice = "alice-token-0123456789abcdef";
const char* kBob = "bob-token-0123456789abcdef00";

std::string WriteTokens(const std::string& name, const std::string& text, mode_t mode) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(TokenTable, FindsOwnersAndAdmins) {
  const std::string text = std::string("# lab tokens\n\nalice ") + kAlice + "\n\tbob  " + kBob + "  admin\n";
  absl::StatusOr<TokenTable> table = TokenTable::Load(WriteTokens("ok", text, 0600));
  ASSERT_TRUE(table.ok()) << table.status();
  EXPECT_EQ(table->size(), 2u);
  ASSERT_NE(table->Find(kAlice), nullptr);
  EXPECT_EQ(table->Find(kAlice)->user, "alice");
  EXPECT_FALSE(table->Find(kAlice)->admin);
  EXPECT_TRUE(table->Find(kBob)->admin);
  EXPECT_EQ(table->Find("alice-token-0123456789abcdeX"), nullptr);
  EXPECT_EQ(table->Find("alice-token-0123456789abcde"), nullptr);  // a prefix
  EXPECT_EQ(table->Find(""), nullptr);
}

TEST(TokenTable, BadLinesNameTheLineButNeverTheToken) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {"alice\n", "line 1: expected \"USER TOKEN\""},
      {"# c\nalice short\n", "line 2: the token must be at least 16"},
      {std::string("al/ice ") + kAlice + "\n", "line 1: the user name"},
      {std::string("alice ") + kAlice + " root\n", "the third field may only be \"admin\""},
      {std::string("alice ") + kAlice + "\nbob " + kAlice + "\n", "line 2: this token is also given"},
      {"# nothing\n\n", "has no token"},
      {std::string("alice ") + kAlice + " admin extra\n", "line 1: expected"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<TokenTable> table = TokenTable::Parse(c.text, "tokens.txt");
    ASSERT_FALSE(table.ok()) << c.text;
    const std::string message(table.status().message());
    EXPECT_EQ(message.find("token_file: tokens.txt"), 0u) << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    EXPECT_EQ(message.find(kAlice), std::string::npos) << "token leaked: " << message;
  }
}

TEST(TokenTable, RefusesFilesOthersCanReadOrWrite) {
  const std::string text = std::string("alice ") + kAlice + "\n";
  EXPECT_TRUE(TokenTable::Load(WriteTokens("group-read", text, 0640)).ok());
  for (mode_t mode : {0644, 0602, 0620}) {
    absl::StatusOr<TokenTable> table = TokenTable::Load(WriteTokens("loose", text, mode));
    ASSERT_FALSE(table.ok()) << std::oct << mode;
    EXPECT_NE(table.status().message().find("chmod 0600"), absl::string_view::npos);
  }
  EXPECT_FALSE(TokenTable::Load("/nonexistent/tokens").ok());
  EXPECT_FALSE(TokenTable::Load(std::getenv("TEST_TMPDIR")).ok());  // a folder
}

TEST(TokenFileWatcher, FollowsEditsAndKeepsTheLastGoodTokens) {
  const std::string path = WriteTokens("watched", std::string("alice ") + kAlice + "\n", 0600);
  absl::StatusOr<std::unique_ptr<TokenFileWatcher>> watcher = TokenFileWatcher::Open(path, std::chrono::seconds(0));
  ASSERT_TRUE(watcher.ok()) << watcher.status();
  EXPECT_NE((*watcher)->Current()->Find(kAlice), nullptr);

  // Rotation: alice's token replaced by bob's (the size changes, so no clock resolution issue).
  WriteTokens("watched", std::string("bob ") + kBob + " admin\n", 0600);
  EXPECT_EQ((*watcher)->Current()->Find(kAlice), nullptr);
  ASSERT_NE((*watcher)->Current()->Find(kBob), nullptr);

  // A broken edit keeps the previous tokens.
  WriteTokens("watched", "bob short\n", 0600);
  EXPECT_NE((*watcher)->Current()->Find(kBob), nullptr);
  EXPECT_FALSE(TokenFileWatcher::Open(path).ok());
}

TEST(BearerToken, TakesOnlyTheBearerScheme) {
  EXPECT_EQ(BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(BearerToken("bearer   abc  "), "abc");
  EXPECT_EQ(BearerToken("Basic abc"), "");
  EXPECT_EQ(BearerToken("abc"), "");
  EXPECT_EQ(BearerToken(""), "");
}

}  // namespace
}  // namespace torchscan::daemon
