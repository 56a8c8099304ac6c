// A connection to one torchscand: the gRPC stub behind calls that return absl statuses
// whose messages say what to do. The only client file that includes gRPC.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/service.pb.h"

namespace torchscan {

// "unix:/path", "unix:///path", "host:port", or a bare path (taken as a unix socket).
std::string NormalizeDaemonAddress(const std::string& address);

// How to prove who we are to a daemon on TCP (all optional on a unix socket).
struct DaemonCredentials {
  std::string tls_ca_file;      // PEM CA that signed the daemon's certificate; set: TLS on
  std::string tls_cert_file;    // PEM client certificate, for a daemon with mutual TLS
  std::string tls_key_file;     // its private key
  std::string tls_server_name;  // name expected in the daemon's certificate; default: the host
  std::string token;            // bearer token, sent as "authorization: Bearer TOKEN" on each call
};

class DaemonClient {
 public:
  // Connects, waiting up to `timeout_s` for the daemon; `source` says where the address came
  // from ("--daemon", "TORCHSCAN_DAEMON"), for messages. A failed connection is explained by
  // DiagnoseConnectFailure (connect_diagnosis.h): PermissionDenied for a unix socket the
  // caller may not open, naming its group; Unavailable leading with the likely cause (no
  // socket, closed port, wrong CA, wrong server name, plain versus TLS) and the fix.
  // InvalidArgument naming the flag for unreadable TLS files, a client certificate without
  // its key, or a token that would travel over plain TCP (give --tls-ca).
  // gRPC's own log lines are captured for that diagnosis and never printed.
  static absl::StatusOr<std::unique_ptr<DaemonClient>> Connect(const std::string& address,
                                                               const DaemonCredentials& credentials = {},
                                                               double timeout_s = 5, const std::string& source = "");
  ~DaemonClient();

  const std::string& address() const { return address_; }

  absl::StatusOr<v1::Job> Submit(const v1::JobSpec& spec);
  // Streams events until the job finishes (or the stream ends); returns the last job seen.
  // Cancelled "stopped waiting for job ID" once StopWatching was called.
  absl::StatusOr<v1::Job> Watch(const std::string& id, const std::function<void(const v1::JobEvent&)>& on_event);
  // Ends every Watch in flight and any later one with Cancelled; the jobs themselves go on.
  // Thread-safe: for a Ctrl-C handler on another thread.
  void StopWatching();
  absl::StatusOr<v1::Job> GetJob(const std::string& id);
  absl::StatusOr<v1::ListJobsResponse> ListJobs(const v1::ListJobsRequest& request);
  absl::StatusOr<v1::Job> Cancel(const std::string& id);
  absl::StatusOr<v1::JobResult> FetchResult(const std::string& id);
  absl::StatusOr<v1::DaemonInfo> Info();
  // One page of a benchmark's history (the jobs labelled request.name, newest first); the
  // daemon's InvalidArgument names the field it refuses (empty name, page_size, page_token).
  absl::StatusOr<v1::HistoryResponse> History(const v1::HistoryRequest& request);

 private:
  struct Stub;
  DaemonClient(std::string address, std::unique_ptr<Stub> stub);
  std::string address_;
  std::unique_ptr<Stub> stub_;
};

// True for states after which a job never changes again.
bool IsFinished(v1::Job::State state);

}  // namespace torchscan
