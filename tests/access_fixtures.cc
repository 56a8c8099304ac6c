#include "tests/access_fixtures.h"

#include <netinet/in.h>
#include <sys/socket.h>

#include <fstream>

namespace torchscan::e2e {

namespace fs = std::filesystem;

void WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

// A loopback TCP port nobody listens on right now.
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  socklen_t size = sizeof(address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

Pki MakePki(const std::string& dir) {
  Pki p{dir,
        dir + "/ca.pem",
        dir + "/server.pem",
        dir + "/server.key",
        dir + "/client.pem",
        dir + "/client.key",
        dir + "/other-ca.pem"};
  const std::string script = "set -e; cd " + dir +
                             "; q='-loglevel error'; "
                             "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=torchscan-test-ca "
                             "-keyout ca.key -out ca.pem 2>/dev/null; "
                             "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca "
                             "-keyout other-ca.key -out other-ca.pem 2>/dev/null; "
                             "openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key "
                             "-out server.csr 2>/dev/null; "
                             "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1' > san.ext; "
                             "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
                             "-extfile san.ext -out server.pem 2>/dev/null; "
                             "openssl req -newkey rsa:2048 -nodes -subj /CN=alice -keyout client.key "
                             "-out client.csr 2>/dev/null; "
                             "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 "
                             "-out client.pem 2>/dev/null";
  const CommandResult r = e2e::Run("/bin/sh", {"-c", script}, 120);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return p;
}

Placement OpenPlacement(const std::string& name) {
  if (::geteuid() != 0) return {TempDir(name), {}};
  const std::string dir = "/tmp/torchscan-access-" + name + "-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir);
  ::chmod(dir.c_str(), 0755);
  for (const char* binary : {"worker/torchscan-worker", "passes/torchscan_rss_child"})
    fs::copy_file(Runfile(binary), dir + "/" + fs::path(binary).filename().string());
  return {
      dir + "/state",
      {"--worker-user", "nobody", "--worker", dir + "/torchscan-worker", "--rss-child", dir + "/torchscan_rss_child"}};
}

}  // namespace torchscan::e2e
