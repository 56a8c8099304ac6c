// The real torchscand binary, driven over its unix socket with the generated gRPC stub:
// a real worker measuring Linear(128,128), kill -9 and restart with nothing lost (the fake
// worker keeps that fast), SIGTERM, refusals and bad configurations.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "proto/service.grpc.pb.h"

namespace torchscan {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string Runfile(const std::string& path) { return std::string(std::getenv("TEST_SRCDIR")) + "/torchscan/" + path; }

// A short folder for sockets (unix socket paths are limited to 107 bytes; TEST_TMPDIR is longer).
class SocketDir {
 public:
  SocketDir() {
    char pattern[] = "/tmp/torchscand_test_XXXXXX";
    path_ = ::mkdtemp(pattern);
  }
  ~SocketDir() { fs::remove_all(path_); }
  std::string socket() const { return path_ + "/d.sock"; }

 private:
  std::string path_;
};

// torchscand as a child process with its output in TEST_TMPDIR/<name>.log.
class DaemonProcess {
 public:
  DaemonProcess(const std::string& name, std::vector<std::string> args)
      : log_(std::string(std::getenv("TEST_TMPDIR")) + "/" + name + ".log") {
    args.insert(args.begin(), Runfile("daemon/torchscand"));
    pid_ = ::fork();
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<char*> argv;
      for (std::string& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~DaemonProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      Wait();
    }
  }
  // The raw wait status once it exits (30 s at most), or -1.
  int Wait(double timeout_s = 30) {
    const auto start = Clock::now();
    while (!exited_ && std::chrono::duration<double>(Clock::now() - start).count() < timeout_s) {
      if (::waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
      else std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return exited_ ? status_ : -1;
  }
  void Signal(int signal) { ::kill(pid_, signal); }
  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

 private:
  std::string log_;
  pid_t pid_ = -1;
  int status_ = 0;
  bool exited_ = false;
};

// A fresh channel per attempt: a channel that failed once waits out gRPC's reconnect backoff.
std::unique_ptr<v1::TorchScan::Stub> Connect(const std::string& socket, DaemonProcess& daemon) {
  std::unique_ptr<v1::TorchScan::Stub> stub;
  for (int i = 0; i < 300; ++i) {
    stub = v1::TorchScan::NewStub(grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
    v1::DaemonInfo info;
    if (stub->Info(&context, v1::InfoRequest(), &info).ok()) return stub;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "torchscand did not answer on " << socket << "; its log:\n" << daemon.Log();
  return stub;
}

v1::SubmitRequest FakeJob(const std::string& mode) {
  v1::SubmitRequest request;
  request.mutable_spec()->set_label(mode);
  request.mutable_spec()->mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  return request;
}

v1::Job Submit(v1::TorchScan::Stub& stub, const v1::SubmitRequest& request) {
  grpc::ClientContext context;
  v1::Job job;
  grpc::Status s = stub.Submit(&context, request, &job);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return job;
}

grpc::Status Get(v1::TorchScan::Stub& stub, const std::string& id, v1::Job* job) {
  grpc::ClientContext context;
  v1::JobRequest request;
  request.set_id(id);
  return stub.GetJob(&context, request, job);
}

v1::Job WaitFor(v1::TorchScan::Stub& stub, const std::string& id, v1::Job::State state) {
  v1::Job job;
  for (int i = 0; i < 1500; ++i) {
    if (Get(stub, id, &job).ok() && job.state() == state) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(v1::Job::State_Name(job.state()), v1::Job::State_Name(state)) << job.error();
  return job;
}

// As root, workers would run as "nobody", who cannot reach the runfiles under /root: these
// daemons keep their workers as the test's user (tests/access_end_to_end_test covers nobody).
std::vector<std::string> Base(const std::string& name, const SocketDir& sockets) {
  const std::string state = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::vector<std::string> args = {"--state-dir", state, "--listen", "unix:" + sockets.socket()};
  if (::geteuid() == 0) args.insert(args.end(), {"--worker-user", "root"});
  return args;
}

TEST(Torchscand, MeasuresAndComparesWithTheRealWorkerThenStopsOnSigterm) {
  SocketDir sockets;
  std::vector<std::string> args = Base("real", sockets);
  args.insert(args.end(), {"--socket-mode", "0600"});
  DaemonProcess daemon("real", args);
  auto stub = Connect(sockets.socket(), daemon);
  struct stat info;
  ASSERT_EQ(::stat(sockets.socket().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);

  v1::SubmitRequest request;
  request.mutable_spec()->set_label("linear");
  request.mutable_spec()->mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  request.mutable_spec()->mutable_options()->set_min_run_time_s(0.02);
  request.mutable_spec()->mutable_options()->set_rss(true);  // the RSS child found beside the worker
  const v1::Job submitted = Submit(*stub, request);
  EXPECT_EQ(submitted.submitter(), ::getpwuid(::getuid())->pw_name);  // the kernel's word, not "local"

  grpc::ClientContext context;
  v1::JobRequest watch;
  watch.set_id(submitted.id());
  auto reader = stub->Watch(&context, watch);
  v1::JobEvent event;
  std::vector<std::string> messages;
  v1::Job last;
  while (reader->Read(&event)) {
    messages.push_back(event.message());
    last = event.job();
  }
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_EQ(last.state(), v1::Job::succeeded) << last.error() << "\n" << daemon.Log();
  bool saw_timing = false;
  for (const std::string& m : messages)
    saw_timing = saw_timing || m.find("phase timing measurement") != std::string::npos;
  EXPECT_TRUE(saw_timing);

  grpc::ClientContext fetch_context;
  v1::JobResult result;
  ASSERT_TRUE(stub->FetchResult(&fetch_context, watch, &result).ok());
  EXPECT_EQ(result.report().work_unit(), "samples");
  EXPECT_GE(result.report().timing().blocks_size(), 10);
  EXPECT_EQ(result.report().settings().threads().intra_op(), 1);
  EXPECT_FALSE(result.report().environment().libtorch_version().empty());
  bool rss_measured = false;
  for (const v1::MetricResult& m : result.report().totals())
    rss_measured = rss_measured || (m.name() == "peak_rss_bytes" && m.complete() && m.value() > 0);
  EXPECT_TRUE(rss_measured) << result.report().DebugString();

  // A comparison with the check skipped: measured, compared, check not_provided.
  v1::SubmitRequest compare;
  v1::CompareJob* c = compare.mutable_spec()->mutable_compare();
  c->mutable_baseline()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  c->mutable_baseline()->set_execution_mode(v1::WorkloadSpec::per_sample);
  c->mutable_candidate()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  c->mutable_check()->set_skip(true);
  compare.mutable_spec()->mutable_options()->set_min_run_time_s(0.02);
  compare.mutable_spec()->mutable_options()->set_skip_diagnostics(true);
  const v1::Job compared = WaitFor(*stub, Submit(*stub, compare).id(), v1::Job::succeeded);
  EXPECT_EQ(compared.output_check(), "not_provided");
  EXPECT_FALSE(compared.latency_change().empty());

  grpc::ClientContext info_context;
  v1::DaemonInfo daemon_info;
  ASSERT_TRUE(stub->Info(&info_context, v1::InfoRequest(), &daemon_info).ok());
  // The workers' LibTorch, named by a daemon that never loads it: the version its worker reported.
  EXPECT_EQ(daemon_info.environment().libtorch_version(), result.report().environment().libtorch_version());
  EXPECT_EQ(daemon_info.config().socket_mode(), "0600");
  EXPECT_FALSE(daemon_info.config().rss_child_path().empty());  // found beside the worker

  daemon.Signal(SIGTERM);
  const int status = daemon.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << "\n" << daemon.Log();
}

TEST(Torchscand, KillDashNineMidJobLosesNothing) {
  SocketDir sockets;
  std::vector<std::string> args = Base("kill9", sockets);
  args.insert(args.end(), {"--worker", Runfile("daemon/fake_worker")});
  std::string done, running, queued;
  {
    DaemonProcess daemon("kill9-first", args);
    auto stub = Connect(sockets.socket(), daemon);
    done = Submit(*stub, FakeJob("ok")).id();
    running = Submit(*stub, FakeJob("ok sleep=60")).id();
    queued = Submit(*stub, FakeJob("compare")).id();
    WaitFor(*stub, done, v1::Job::succeeded);
    v1::Job job = WaitFor(*stub, running, v1::Job::running);
    for (int i = 0; i < 500 && job.worker_pid() == 0; ++i) {  // running is recorded just before the launch
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Get(*stub, running, &job);
    }
    ASSERT_GT(job.worker_pid(), 0);
    daemon.Signal(SIGKILL);
    daemon.Wait();
    for (int i = 0; i < 200 && ::kill(job.worker_pid(), 0) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_NE(::kill(job.worker_pid(), 0), 0) << "the worker outlived its daemon";
  }
  DaemonProcess daemon("kill9-second", args);  // same socket: the stale file is replaced
  auto stub = Connect(sockets.socket(), daemon);
  v1::Job job;
  ASSERT_TRUE(Get(*stub, done, &job).ok());
  EXPECT_EQ(job.state(), v1::Job::succeeded);
  grpc::ClientContext context;
  v1::JobRequest request;
  request.set_id(done);
  v1::JobResult result;
  EXPECT_TRUE(stub->FetchResult(&context, request, &result).ok());
  ASSERT_TRUE(Get(*stub, running, &job).ok());
  EXPECT_EQ(job.state(), v1::Job::interrupted);
  const v1::Job compared = WaitFor(*stub, queued, v1::Job::succeeded);
  EXPECT_EQ(compared.latency_change(), "faster");

  // SIGTERM mid-job: recorded interrupted with the signal named.
  const std::string slow = Submit(*stub, FakeJob("ok sleep=60")).id();
  WaitFor(*stub, slow, v1::Job::running);
  daemon.Signal(SIGTERM);
  EXPECT_EQ(daemon.Wait(), 0) << daemon.Log();
  DaemonProcess third("kill9-third", args);
  stub = Connect(sockets.socket(), third);
  ASSERT_TRUE(Get(*stub, slow, &job).ok());
  EXPECT_EQ(job.state(), v1::Job::interrupted);
  EXPECT_EQ(job.error(), "interrupted: torchscand received SIGTERM");
}

// The serialized bytes of a ByteBuffer.
std::string Bytes(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  (void)buffer.Dump(&slices);
  std::string bytes;
  for (const grpc::Slice& slice : slices) bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  return bytes;
}

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// Standard tools' view: grpc.health.v1 and server reflection, called without their stubs.
TEST(Torchscand, HealthAndReflectionAnswer) {
  SocketDir sockets;
  std::vector<std::string> args = Base("standard", sockets);
  args.insert(args.end(), {"--worker", Runfile("daemon/fake_worker")});
  DaemonProcess daemon("standard", args);
  Connect(sockets.socket(), daemon);
  auto channel = grpc::CreateChannel("unix:" + sockets.socket(), grpc::InsecureChannelCredentials());
  grpc::GenericStub generic(channel);
  grpc::CompletionQueue queue;
  void* tag;
  bool ok;

  grpc::ClientContext health_context;
  auto health = generic.PrepareUnaryCall(&health_context, "/grpc.health.v1.Health/Check", Buffer(""), &queue);
  health->StartCall();
  grpc::ByteBuffer health_reply;
  grpc::Status health_status;
  health->Finish(&health_reply, &health_status, &health_context);
  ASSERT_TRUE(queue.Next(&tag, &ok));
  ASSERT_TRUE(health_status.ok()) << health_status.error_message();
  EXPECT_EQ(Bytes(health_reply), std::string("\x08\x01", 2));  // status: SERVING

  grpc::ClientContext reflection_context;
  auto stream = generic.PrepareCall(&reflection_context,
                                    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
  auto step = [&] { return queue.Next(&tag, &ok) && ok; };
  stream->StartCall(&reflection_context);
  ASSERT_TRUE(step());
  stream->Write(Buffer(std::string("\x3a\x00", 2)), &reflection_context);  // list_services: ""
  ASSERT_TRUE(step());
  grpc::ByteBuffer listing;
  stream->Read(&listing, &reflection_context);
  ASSERT_TRUE(step());
  EXPECT_NE(Bytes(listing).find("torchscan.v1.TorchScan"), std::string::npos);
  stream->WritesDone(&reflection_context);
  step();
  grpc::Status finished;
  stream->Finish(&finished, &reflection_context);
  step();
}

TEST(Torchscand, RefusalsComeBackWithTheirCodes) {
  SocketDir sockets;
  std::vector<std::string> args = Base("refusals", sockets);
  args.insert(args.end(), {"--worker", Runfile("daemon/fake_worker"), "--max-upload", "1000"});
  DaemonProcess daemon("refusals", args);
  auto stub = Connect(sockets.socket(), daemon);

  v1::SubmitRequest bad = FakeJob("ok");
  bad.mutable_spec()->mutable_measure()->mutable_workload()->set_device("cuda:3");
  grpc::ClientContext c1;
  v1::Job job;
  grpc::Status s = stub->Submit(&c1, bad, &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message().find("spec.measure.workload.device:"), 0u) << s.error_message();

  v1::SubmitRequest big = FakeJob("ok");
  big.mutable_spec()->set_label(std::string(2000, 'x'));
  grpc::ClientContext c2;
  s = stub->Submit(&c2, big, &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(s.error_message().find("max_upload_bytes 1000"), std::string::npos) << s.error_message();

  EXPECT_EQ(Get(*stub, "job-424242", &job).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST(Torchscand, BadConfigurationStopsStartUpNamingTheField) {
  SocketDir sockets;
  std::vector<std::string> args = Base("badconfig", sockets);
  args.insert(args.end(), {"--listen", "0.0.0.0:50051"});
  DaemonProcess tcp("badconfig-tcp", args);
  const int status = tcp.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << status;
  EXPECT_NE(tcp.Log().find("torchscand: listen[1]: TCP address \"0.0.0.0:50051\" needs credentials"), std::string::npos)
      << tcp.Log();

  const std::string config = std::string(std::getenv("TEST_TMPDIR")) + "/bad_config.json";
  std::ofstream(config) << R"({"state_dir": "/tmp/x", "limits": {"job_wall_time": 5}})";
  DaemonProcess file("badconfig-file", {"--config", config});
  EXPECT_EQ(WEXITSTATUS(file.Wait()), 2);
  EXPECT_NE(file.Log().find(config), std::string::npos) << file.Log();
  EXPECT_NE(file.Log().find("job_wall_time"), std::string::npos) << file.Log();

  std::vector<std::string> check = Base("checkconfig", sockets);
  check.insert(check.end(), {"--check-config", "--max-queue", "7"});
  DaemonProcess checked("checkconfig", check);
  EXPECT_EQ(checked.Wait(), 0) << checked.Log();
  EXPECT_NE(checked.Log().find("\"max_queue_length\": 7"), std::string::npos) << checked.Log();
}

TEST(Torchscand, ASecondDaemonOnTheSameSocketIsRefused) {
  SocketDir sockets;
  std::vector<std::string> args = Base("second", sockets);
  args.insert(args.end(), {"--worker", Runfile("daemon/fake_worker")});
  DaemonProcess first("second-a", args);
  auto stub = Connect(sockets.socket(), first);
  DaemonProcess second("second-b", args);
  const int status = second.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
  EXPECT_NE(second.Log().find("in use by another torchscand"), std::string::npos) << second.Log();
}

}  // namespace
}  // namespace torchscan
