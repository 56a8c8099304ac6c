// Hostile and broken input against one real torchscand: a table of malformed requests and
// files (job files, report files, TorchScript modules, raw gRPC requests the client would
// never send). Each case must fail with the expected client exit code (client/exit_codes.h)
// or gRPC code and a message naming the field; after every case the daemon is alive and
// answers, and the result of a job it ran before the table is byte-identical, on disk and
// over gRPC. Every case must meet its expectation. Prints "hostile input: N cases, M daemon
// crashes, K stored results damaged", and asserts that N is the number of cases declared and
// the number README.md states for this test.
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>
#include <gtest/gtest.h>

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/message_differencer.h>

#include "io/zip_fixture.h"
#include "libtorch_build_info.h"
#include "proto/service.grpc.pb.h"
#include "tests/e2e_support.h"

namespace torchscan::e2e {
namespace {

namespace fs = std::filesystem;

// The daemon refuses specs above this (--max-upload), so that an oversize case stays cheap.
constexpr int64_t kMaxUpload = 8 << 20;
// Over kMaxUpload: the client's check before it sends, or the daemon's before it parses.
constexpr size_t kOverUpload = (8 << 20) + (1 << 19);
// A case that takes longer than this hung instead of being refused.
constexpr double kCaseSeconds = 30;

// ------------------------------------------------------------------ files

std::string Write(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

// Every regular file under `dir`, relative path -> bytes.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) files[fs::relative(entry.path(), dir).string()] = Slurp(entry.path().string());
  return files;
}

std::string Nested(int depth, const std::string& open, const std::string& close) {
  std::string s;
  s.reserve(depth * (open.size() + close.size()));
  for (int i = 0; i < depth; ++i) s += open;
  for (int i = 0; i < depth; ++i) s += close;
  return s;
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) ADD_FAILURE() << "fixture text lacks \"" << from << "\"";
  else text.replace(at, from.size(), to);
  return text;
}

std::string Base64(const std::string& bytes) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) n |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[n & 63] : '=';
  }
  return out;
}

// A measure job file around `workload` and `options` (JSON object bodies).
std::string MeasureJob(const std::string& workload, const std::string& options = R"("min_run_time_s": 0.02)") {
  return R"({"measure": {"workload": {)" + workload + R"(}}, "options": {)" + options + "}}";
}
constexpr const char* kLinear = R"("model": {"builtin": "linear"})";
std::string CompareJob(const std::string& check, const std::string& extra = "") {
  return R"({"compare": {"baseline": {"model": {"builtin": "linear"}, "execution_mode": "per_sample"},
             "candidate": {"model": {"builtin": "linear"}}, "check": {)" +
         check + "}" + extra + R"(}, "options": {"min_run_time_s": 0.02, "skip_diagnostics": true}})";
}

// ------------------------------------------------------------------ raw gRPC

class RawClient {
 public:
  explicit RawClient(const std::string& address) {
    grpc::ChannelArguments args;
    args.SetMaxSendMessageSize(-1);
    args.SetMaxReceiveMessageSize(-1);
    channel_ = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
    stub_ = v1::TorchScan::NewStub(channel_);
  }

  // `bytes` as the request of TorchScan's `method`, sent as they are (no protobuf encoder
  // writes them), through the same call gRPC's generated stubs make.
  grpc::Status Bytes(const std::string& method, const std::string& bytes) {
    const std::string path = "/torchscan.v1.TorchScan/" + method;
    const grpc::Slice slice(bytes);
    const grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    return grpc::internal::BlockingUnaryCall(
        channel_.get(), grpc::internal::RpcMethod(path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC), &context,
        request, &response);
  }

  grpc::Status Submit(const v1::JobSpec& spec, bool with_spec = true) {
    v1::SubmitRequest request;
    if (with_spec) *request.mutable_spec() = spec;
    v1::Job job;
    return Call(&v1::TorchScan::Stub::Submit, request, &job);
  }
  grpc::Status GetJob(const std::string& id) {
    v1::Job r;
    return Call(&v1::TorchScan::Stub::GetJob, ById(id), &r);
  }
  grpc::Status Cancel(const std::string& id) {
    v1::Job r;
    return Call(&v1::TorchScan::Stub::Cancel, ById(id), &r);
  }
  grpc::Status Fetch(const std::string& id, v1::JobResult* result) {
    return Call(&v1::TorchScan::Stub::FetchResult, ById(id), result);
  }
  grpc::Status List(const v1::ListJobsRequest& request) {
    v1::ListJobsResponse r;
    return Call(&v1::TorchScan::Stub::ListJobs, request, &r);
  }
  grpc::Status Info() {
    v1::DaemonInfo r;
    return Call(&v1::TorchScan::Stub::Info, v1::InfoRequest(), &r);
  }
  grpc::Status Watch(const std::string& id) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    google::protobuf::LogSilencer quiet;
    auto reader = stub_->Watch(&context, ById(id));
    v1::JobEvent event;
    while (reader->Read(&event)) {
    }
    return reader->Finish();
  }

 private:
  static v1::JobRequest ById(const std::string& id) {
    v1::JobRequest r;
    r.set_id(id);
    return r;
  }
  template <typename Request, typename Response>
  grpc::Status Call(grpc::Status (v1::TorchScan::Stub::*method)(grpc::ClientContext*, const Request&, Response*),
                    const Request& request, Response* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    google::protobuf::LogSilencer quiet;  // protobuf logs each non-UTF-8 string it serialises
    return (stub_.get()->*method)(&context, request, response);
  }
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::TorchScan::Stub> stub_;
};

// A small valid measure spec; cases break one part of it.
v1::JobSpec GoodSpec() {
  v1::JobSpec spec;
  spec.mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  spec.mutable_options()->set_min_run_time_s(0.02);
  return spec;
}

template <typename Edit>
v1::JobSpec GoodSpecWith(Edit edit) {
  v1::JobSpec spec = GoodSpec();
  edit(&spec);
  return spec;
}

// ------------------------------------------------------------------ the table

struct Outcome {
  int code = -1;        // client exit code or grpc::StatusCode
  std::string message;  // client stderr + stdout, or the gRPC error message
};

struct Case {
  std::string name;
  std::function<Outcome()> send;
  int expected;                              // exit code (client) or grpc::StatusCode (raw)
  std::string must_contain;                  // the field (or flag) the message must name
  std::vector<std::string> also_contains{};  // more it must name: the file, the fix, what to do
};

class Table {
 public:
  Table(const TestDaemon& daemon, RawClient& raw) : daemon_(daemon), raw_(raw) {}

  // torchscan-client <args>; expects `exit_code` and `field` in its output.
  void Client(std::string name, std::vector<std::string> args, int exit_code, std::string field) {
    const TestDaemon* d = &daemon_;
    cases_.push_back({std::move(name),
                      [d, args] {
                        const CommandResult r = d->Client(args, 120);
                        return Outcome{r.exit_code, r.err + r.out};
                      },
                      exit_code, std::move(field)});
  }
  // A job file given to `measure --job` (or `compare --job` when it holds "compare"); with
  // `daemon_path` its paths go to the daemon's worker as paths (--daemon-path), unread here.
  void JobFile(std::string name, const std::string& path, int exit_code, std::string field, bool daemon_path = false) {
    const std::string command = Slurp(path).find("\"compare\"") != std::string::npos ? "compare" : "measure";
    std::vector<std::string> args = {command, "--job", path};
    if (daemon_path) args.push_back("--daemon-path");
    Client(std::move(name), std::move(args), exit_code, std::move(field));
  }
  // A raw gRPC call the client would not make.
  void Grpc(std::string name, std::function<grpc::Status(RawClient&)> call, grpc::StatusCode code, std::string field) {
    RawClient* raw = &raw_;
    cases_.push_back({std::move(name),
                      [raw, call] {
                        const grpc::Status s = call(*raw);
                        return Outcome{static_cast<int>(s.error_code()), s.error_message()};
                      },
                      static_cast<int>(code), std::move(field)});
  }
  void Submit(std::string name, v1::JobSpec spec, grpc::StatusCode code, std::string field) {
    // Shared, not copied with the case: one spec holds a 100 MB label.
    auto shared = std::make_shared<const v1::JobSpec>(std::move(spec));
    Grpc(
        std::move(name), [shared](RawClient& raw) { return raw.Submit(*shared); }, code, std::move(field));
  }
  // The last case's message must also name these (the file, the fix).
  void AlsoNaming(std::vector<std::string> parts) {
    cases_.back().also_contains.insert(cases_.back().also_contains.end(), parts.begin(), parts.end());
  }
  // The last case's message must also name this fix.
  void Fix(std::string fix) { AlsoNaming({std::move(fix)}); }

  const std::vector<Case>& cases() const { return cases_; }

 private:
  const TestDaemon& daemon_;
  RawClient& raw_;
  std::vector<Case> cases_;
};

constexpr int kBadInput = 2, kJobFailed = 3, kRefused = 5;
using grpc::StatusCode;

// Job files the client sends to the daemon (or refuses itself).
void AddJobFileCases(Table& t, const std::string& dir, const std::string& module) {
  const auto file = [&](const std::string& name, const std::string& content) {
    return Write(dir + "/" + name + ".json", content);
  };
  t.JobFile("job file empty", file("empty", ""), kBadInput, "JobSpec");
  t.JobFile("job file truncated JSON", file("truncated", R"({"measure": {"workload": {"model": {"buil)"), kBadInput,
            "JobSpec");
  t.JobFile("job file unknown field",
            file("unknown", Replace(MeasureJob(kLinear), R"("measure")", R"("turbo": true, "measure")")), kBadInput,
            "turbo");
  t.JobFile("job file 100000 nested arrays", file("nested_arrays", R"({"label": )" + Nested(100000, "[", "]") + "}"),
            kBadInput, "label");
  t.JobFile("job file 100000 nested objects",
            file("nested_objects", R"({"measure": )" + Nested(100000, R"({"workload": )", "}") + "}"), kBadInput,
            "workload");
  t.JobFile("job file non-UTF-8 label",
            file("non_utf8", "{\"label\": \"\xff\xfe\xc3\", " + MeasureJob(kLinear).substr(1)), kBadInput, "JobSpec");
  t.JobFile("job file with neither measure nor compare", file("no_kind", R"({"label": "x"})"), kBadInput,
            "measure or compare");
  t.JobFile("job file threads as text", file("threads_text", MeasureJob(kLinear, R"("intra_op_threads": "many")")),
            kBadInput, "intra_op_threads");
  t.JobFile("job file threads beyond int32",
            file("threads_overflow", MeasureJob(kLinear, R"("intra_op_threads": 99999999999)")), kBadInput,
            "intra_op_threads");
  t.JobFile("negative intra-op threads", file("threads_negative", MeasureJob(kLinear, R"("intra_op_threads": -3)")),
            kBadInput, "spec.options.intra_op_threads");
  t.JobFile("huge intra-op threads", file("threads_huge", MeasureJob(kLinear, R"("intra_op_threads": 1000000)")),
            kBadInput, "spec.options.intra_op_threads");
  t.JobFile("huge inter-op threads", file("inter_huge", MeasureJob(kLinear, R"("inter_op_threads": 2147483647)")),
            kBadInput, "spec.options.inter_op_threads");
  t.JobFile("min_run_time NaN", file("mrt_nan", MeasureJob(kLinear, R"("min_run_time_s": "NaN")")), kBadInput,
            "spec.options.min_run_time_s");
  t.JobFile("min_run_time Infinity", file("mrt_inf", MeasureJob(kLinear, R"("min_run_time_s": "Infinity")")), kBadInput,
            "spec.options.min_run_time_s");
  t.JobFile("min_run_time 1e300 s", file("mrt_huge", MeasureJob(kLinear, R"("min_run_time_s": 1e300)")), kBadInput,
            "spec.options.min_run_time_s");
  t.JobFile("negative max_run_time", file("maxrt_negative", MeasureJob(kLinear, R"("max_run_time_s": -1)")), kBadInput,
            "spec.options.max_run_time_s");
  t.JobFile("negative min_blocks", file("blocks_negative", MeasureJob(kLinear, R"("min_blocks": -5)")), kBadInput,
            "spec.options.min_blocks");
  t.JobFile("rtol NaN", file("rtol_nan", CompareJob(R"("declarative": {"rtol": "NaN"})")), kBadInput,
            "spec.compare.check.declarative.rtol");
  t.JobFile("atol negative", file("atol_negative", CompareJob(R"("declarative": {"rtol": 1e-4, "atol": -1e-5})")),
            kBadInput, "spec.compare.check.declarative.atol");
  t.JobFile("rtol -Infinity", file("rtol_inf", CompareJob(R"("declarative": {"rtol": "-Infinity"})")), kBadInput,
            "spec.compare.check.declarative.rtol");
  t.JobFile("1000 rounds", file("rounds_huge", CompareJob(R"("skip": true)", R"(, "rounds": 1000)")), kBadInput,
            "spec.compare.rounds");
  t.JobFile("check module without a source", file("check_no_source", CompareJob(R"("torchscript": {"method": "f"})")),
            kBadInput, "spec.compare.check.torchscript");
  t.JobFile("device tpu", file("device_tpu", MeasureJob(std::string(kLinear) + R"(, "device": "tpu")")), kBadInput,
            "spec.measure.workload.device");
  t.JobFile("device cuda:99 on a CPU daemon",
            file("device_cuda99", MeasureJob(std::string(kLinear) + R"(, "device": "cuda:99")")), kBadInput,
            "spec.measure.workload.device");
  t.JobFile("device with a NUL byte",
            file("device_nul", MeasureJob(std::string(kLinear) + R"(, "device": "cpu\u0000; rm -rf /")")), kBadInput,
            "spec.measure.workload.device");
  t.JobFile("empty workload", file("workload_empty", MeasureJob("")), kBadInput, "spec.measure.workload.model");
  t.JobFile("measure without a workload", file("no_workload", R"({"measure": {}})"), kBadInput,
            "spec.measure.workload");
  t.JobFile("compare without a check", file("no_check", R"({"compare": {"baseline": {"model": {"builtin": "linear"}},
             "candidate": {"model": {"builtin": "linear"}}}})"),
            kBadInput, "spec.compare.check");
  t.JobFile("compare with check.skip false", file("skip_false", CompareJob(R"("skip": false)")), kBadInput,
            "spec.compare.check.skip");
  t.JobFile("rtol without atol", file("rtol_only", CompareJob(R"("declarative": {"rtol": 0.01})")), kBadInput,
            "spec.compare.check.declarative.atol");
  t.JobFile("unknown compare_dtype",
            file("compare_dtype", CompareJob(R"("declarative": {"rtol": 0, "atol": 0, "compare_dtype": "int8"})")),
            kBadInput, "compare_dtype");
  t.JobFile("input_metadata key seed",
            file("metadata_seed", MeasureJob(std::string(kLinear) + R"(, "input_metadata": {"seed": "1"})")), kBadInput,
            "spec.measure.workload.input_metadata");
  t.JobFile("input_metadata key with a NUL byte",
            file("metadata_nul", MeasureJob(std::string(kLinear) + R"(, "input_metadata": {"a\u0000b": "1"})")),
            kBadInput, "spec.measure.workload.input_metadata");
  t.JobFile("compare without a candidate",
            file("no_candidate", R"({"compare": {"baseline": {"model": {"builtin": "linear"}}}})"), kBadInput,
            "spec.compare.candidate");
  t.JobFile("builtin_unspecified",
            file("builtin_unspecified", MeasureJob(R"("model": {"builtin": "builtin_unspecified"})")), kBadInput,
            "spec.measure.workload.model.builtin");
  t.JobFile("unknown builtin name", file("builtin_gpt", MeasureJob(R"("model": {"builtin": "gpt5"})")), kBadInput,
            "builtin");
  t.JobFile("negative shape",
            file("shape_negative",
                 MeasureJob(std::string(kLinear) + R"(, "inputs": [{"generated": {"shape": [32, -128]}}])")),
            kBadInput, "spec.measure.workload.inputs[0].generated.shape[1]");
  t.JobFile("shape overflowing int64",
            file("shape_overflow",
                 MeasureJob(std::string(kLinear) +
                            R"(, "inputs": [{"generated": {"shape": [4611686018427387904, 4611686018427387904]}}])")),
            kBadInput, "spec.measure.workload.inputs[0].generated.shape");
  t.JobFile("input without a source",
            file("input_no_source", MeasureJob(std::string(kLinear) + R"(, "inputs": [{"name": "x"}])")), kBadInput,
            "spec.measure.workload.inputs[0]");
  t.JobFile("TorchScript without a source", file("ts_no_source", MeasureJob(R"("model": {"torchscript": {}})")),
            kBadInput, "spec.measure.workload.model.torchscript");
  t.JobFile(
      "TorchScript with empty module bytes",
      file("ts_empty_bytes",
           MeasureJob(
               R"("model": {"torchscript": {"module_bytes": ""}}, "inputs": [{"generated": {"shape": [2, 4]}}])")),
      kBadInput, "spec.measure.workload.model.torchscript.module_bytes");
  t.JobFile("TorchScript without inputs",
            file("ts_no_inputs", MeasureJob(R"("model": {"torchscript": {"path": ")" + module + R"("}})")), kBadInput,
            "spec.measure.workload.inputs");
  t.JobFile("module path of 10 KB",
            file("ts_long_path", MeasureJob(R"("model": {"torchscript": {"path": "/)" + std::string(10 << 10, 'p') +
                                            R"("}}, "inputs": [{"generated": {"shape": [2, 4]}}])")),
            kBadInput, "spec.measure.workload.model.torchscript.path");
  t.JobFile("tensor_file of 10 KB",
            file("tensor_long_path", MeasureJob(std::string(kLinear) + R"(, "inputs": [{"tensor_file": ")" +
                                                std::string(10 << 10, 't') + R"("}])")),
            kBadInput, "spec.measure.workload.inputs[0].tensor_file");
  t.JobFile("job file is a folder", dir, kBadInput, dir);
  t.Client("job file is /dev/zero", {"measure", "--job", "/dev/zero"}, kBadInput, "/dev/zero");
  t.Client("job file missing", {"measure", "--job", dir + "/missing.json"}, kBadInput, "missing.json");
  // Files travel with the job: the client reads a job file's paths, relative to its folder.
  t.JobFile(
      "job file module path missing",
      file("ts_missing",
           MeasureJob(
               R"("model": {"torchscript": {"path": "nowhere.pt"}}, "inputs": [{"generated": {"shape": [2, 4]}}])")),
      kBadInput, "spec.measure.workload.model.torchscript.path");
  t.AlsoNaming({"cannot read '" + dir + "/nowhere.pt' (\"nowhere.pt\" relative to " + dir + ")", "--daemon-path"});
  t.JobFile(
      "job file module path /dev/zero",
      file("ts_dev_zero_upload",
           MeasureJob(
               R"("model": {"torchscript": {"path": "/dev/zero"}}, "inputs": [{"generated": {"shape": [2, 4]}}])")),
      kBadInput, "spec.measure.workload.model.torchscript.path");
  t.AlsoNaming({"is not a regular file"});
  const std::string big_tensor = Write(dir + "/big_tensor.pt", std::string(kOverUpload, 't'));
  t.JobFile("job file tensor_file over max_upload_bytes",
            file("tensor_big", MeasureJob(std::string(kLinear) + R"(, "inputs": [{"tensor_file": "big_tensor.pt"}])")),
            kRefused, "max_upload_bytes");
  t.AlsoNaming({big_tensor + " 8.5 MiB", "--daemon-path", "torchscand --max-upload"});
  // Over this daemon's max_upload_bytes (8 MiB): refused by the client before it sends the job
  // (its own check, job_spec.h's CheckUploadSize, after asking the daemon for the limit; the
  // daemon's refusal would say "the request's N bytes ... refused unread").
  t.JobFile("8.5 MiB module_bytes",
            file("module_bytes_big",
                 MeasureJob(R"("model": {"torchscript": {"module_bytes": ")" + Base64(std::string(kOverUpload, 'm')) +
                            R"("}}, "inputs": [{"generated": {"shape": [2, 4]}}])")),
            kRefused, "max_upload_bytes");
  t.AlsoNaming(
      {"bytes exceed this daemon's max_upload_bytes 8388608 (8.5 MiB > 8.0 MiB); the files sent with it: "
       "model.torchscript.module_bytes (bytes in the job) 8.5 MiB"});
  t.JobFile("job file 5000-byte label",
            file("label_long", R"({"label": ")" + std::string(5000, 'x') + "\", " + MeasureJob(kLinear).substr(1)),
            kBadInput, "spec.label: holds 5000 bytes, more than the 4096 a text field of a job may hold: shorten it");
}

// Cases that reach a worker (about a second each): what only loading the file can tell.
void AddWorkerCases(Table& t, const std::string& dir, const std::string& truncated, const std::string& random,
                    const std::string& state_dir, const std::string& good_id) {
  const auto file = [&](const std::string& name, const std::string& content) {
    return Write(dir + "/" + name + ".json", content);
  };
  const std::string inputs = R"(, "inputs": [{"generated": {"shape": [2, 128]}}])";
  for (const auto& [what, path] : {std::pair{"truncated", truncated}, std::pair{"random", random}}) {
    const std::string model = R"("model": {"torchscript": {"module_bytes": ")" + Base64(Slurp(path)) + R"("}})";
    t.JobFile(std::string("module_bytes ") + what, file(std::string("ts_") + what, MeasureJob(model + inputs)),
              kJobFailed, "model.torchscript.module_bytes");
  }
  // The client refuses what is no zip archive of a module before sending it; the worker's own
  // refusal of such bytes is the job file cases' (module_bytes above).
  t.Client("--check-module truncated module", {"compare", "--check-module", truncated, "--min-run-time", "0.02"},
           kBadInput, "truncated.pt' is not a TorchScript module");
  t.Client("--check-module random bytes", {"compare", "--check-module", random, "--min-run-time", "0.02"}, kBadInput,
           "random.pt' is not a TorchScript module");
  t.JobFile("module path /dev/zero",
            file("ts_dev_zero", MeasureJob(R"("model": {"torchscript": {"path": "/dev/zero"}})" + inputs)), kJobFailed,
            "model.torchscript.path", true);
  t.JobFile("check module path /dev/zero",
            file("check_dev_zero", CompareJob(R"("torchscript": {"path": "/dev/zero"})")), kJobFailed,
            "check.torchscript", true);
  t.JobFile("tensor_file /dev/zero",
            file("tensor_dev_zero", MeasureJob(std::string(kLinear) + R"(, "inputs": [{"tensor_file": "/dev/zero"}])")),
            kJobFailed, "tensor_file", true);
  // torch.save(..., _use_new_zipfile_serialization=False): a pickle, which LibTorch cannot read.
  const std::string legacy = Write(dir + "/legacy.pt", std::string("\x80\x02\x8a\x0alp", 6));
  t.JobFile(
      "tensor_file in torch.save's legacy format",
      file("tensor_legacy", MeasureJob(std::string(kLinear) + R"(, "inputs": [{"tensor_file": ")" + legacy + R"("}])")),
      kJobFailed, "legacy format", true);
  t.JobFile("module path escaping to /etc/passwd",
            file("ts_passwd",
                 MeasureJob(R"("model": {"torchscript": {"path": "../../../../../../../../etc/passwd"}})" + inputs)),
            kBadInput, "spec.measure.workload.model.torchscript.path", true);
  t.AlsoNaming({"/etc/passwd\" is not shared with this daemon's sandboxed jobs"});
  t.JobFile("module path is a stored result",
            file("ts_result", MeasureJob(R"("model": {"torchscript": {"path": ")" + state_dir + "/jobs/" + good_id +
                                         R"(/result.json"}})" + inputs)),
            kBadInput, "spec.measure.workload.model.torchscript.path", true);
  t.AlsoNaming({"/result.json\" is not shared with this daemon's sandboxed jobs"});
  t.JobFile("shape over the input memory limit",
            file("shape_huge",
                 MeasureJob(std::string(kLinear) + R"(, "inputs": [{"generated": {"shape": [100000, 100000, 128]}}])")),
            kJobFailed, "inputs[0].generated.shape");
}

// Flags the client checks itself.
void AddFlagCases(Table& t, const std::string& dir, const std::string& empty, const std::string& module) {
  t.Client("--threads -1", {"measure", "--threads", "-1"}, kBadInput, "--threads");
  t.Client("--threads 99999", {"measure", "--threads", "99999"}, kBadInput, "--threads");
  t.Client("--min-run-time nan", {"measure", "--min-run-time", "nan"}, kBadInput, "--min-run-time");
  t.Client("--min-run-time inf", {"measure", "--min-run-time", "inf"}, kBadInput, "--min-run-time");
  t.Client("compare without a check", {"compare"}, kBadInput, "--rtol/--atol");
  t.Client("--rtol without --atol", {"compare", "--rtol", "0.01"}, kBadInput, "--atol");
  t.Client("--rtol nan", {"compare", "--rtol", "nan", "--atol", "0"}, kBadInput, "--rtol");
  t.Client("--atol -1", {"compare", "--rtol", "0", "--atol", "-1"}, kBadInput, "--atol");
  t.Client("--check-dtype int8", {"compare", "--rtol", "0", "--atol", "0", "--check-dtype", "int8"}, kBadInput,
           "--check-dtype");
  t.Client("--input 64y256", {"measure", "--input", "64y256"}, kBadInput, "--input");
  t.Client("--input-file missing", {"measure", "--input-file", dir + "/missing.pt"}, kBadInput, "--input-file");
  t.Client("--metadata without =", {"measure", "--metadata", "dataset"}, kBadInput, "--metadata");
  t.Client("--metadata seed", {"measure", "--metadata", "seed=2"}, kBadInput, "--metadata");
  t.Client("--baseline without --candidate", {"compare", "--baseline", empty, "--no-check"}, kBadInput, "--candidate");
  t.Client("--candidate-freeze on a built-in", {"compare", "--candidate-freeze", "--no-check"}, kBadInput,
           "--candidate-freeze");
  t.Client("--torchscript without --input", {"measure", "--torchscript", module}, kBadInput, "--input");
  t.Client("--rounds 0", {"compare", "--rounds", "0"}, kBadInput, "--rounds");
  t.Client("calibrate --pairs 0", {"calibrate", "--pairs", "0"}, kBadInput, "--pairs");
  t.Client("calibrate --rounds 101", {"calibrate", "--rounds", "101"}, kBadInput, "--rounds");
  t.Client("--model gpt5", {"measure", "--model", "gpt5"}, kBadInput, "--model");
  t.Client("--execution-mode sideways", {"measure", "--execution-mode", "sideways"}, kBadInput, "--execution-mode");
  t.Client("--device tpu", {"measure", "--device", "tpu"}, kBadInput, "spec.measure.workload.device");
  t.Client("--device cuda:99", {"compare", "--device", "cuda:99", "--no-check"}, kBadInput,
           "spec.compare.baseline.device");
  // What is no module (an empty file here) is refused by the client, before anything is sent.
  t.Client("--torchscript empty file", {"measure", "--torchscript", empty, "--input", "2x128"}, kBadInput,
           "empty.pt' is not a TorchScript module");
  t.Client("--torchscript missing file", {"measure", "--torchscript", empty + ".missing"}, kBadInput, "--torchscript");
  t.Client("--torchscript a folder", {"measure", "--torchscript", dir}, kBadInput, "--torchscript");
  t.Client("--torchscript /dev/zero", {"measure", "--torchscript", "/dev/zero"}, kBadInput, "--torchscript");
  t.Client("--check-module /dev/zero", {"compare", "--check-module", "/dev/zero"}, kBadInput, "--check-module");
  t.Client("--check-module with --no-check", {"compare", "--check-module", empty, "--no-check"}, kBadInput,
           "--check-module");
  // Files travel with the job: refused here, before anything is sent, naming the file and the fix.
  t.Client("--torchscript relative and missing", {"measure", "--torchscript", "nowhere.pt", "--input", "2x128"},
           kBadInput, "--torchscript");
  t.AlsoNaming({"/nowhere.pt' (\"nowhere.pt\" relative to the working directory ", "No such file or directory",
                "--daemon-path"});
  t.Client("--label of 5000 bytes", {"measure", "--model", "linear", "--label", std::string(5000, 'l')}, kBadInput,
           "--label: is 5000 bytes, more than the 4096");
  t.Client("--input-file relative and missing", {"measure", "--input-file", "x=nowhere.pt"}, kBadInput, "--input-file");
  t.AlsoNaming({"relative to the working directory", "--daemon-path"});
  // A zip archive shaped as a module (its entries under code/), 8.5 MiB of entry names.
  std::vector<std::string> names;
  for (int i = 0; i < 136; ++i) names.push_back("big/code/" + std::to_string(i) + std::string(32755, 'm'));
  const std::string big = Write(dir + "/big_module.pt", ZipOf(names));
  t.Client("--torchscript over max_upload_bytes", {"measure", "--torchscript", big, "--input", "2x128"}, kRefused,
           "max_upload_bytes");
  t.AlsoNaming({big + " 8.5 MiB", "--daemon-path", "torchscand --max-upload"});
  // A path for the daemon's machine is read there by its worker, whose user is named (the
  // daemon shares `dir` with its sandboxed jobs).
  const std::string missing = dir + "/missing/model.pt";
  t.Client("--daemon-path module missing on the daemon's machine",
           {"measure", "--torchscript", missing, "--input", "2x128", "--daemon-path"}, kJobFailed,
           "model.torchscript.path");
  t.AlsoNaming({"'" + missing + "'", "running as user ", "No such file or directory", "leave out --daemon-path"});
  // One outside the shared paths never reaches a worker.
  t.Client("--daemon-path module the daemon does not share",
           {"measure", "--torchscript", "/nonexistent/model.pt", "--input", "2x128", "--daemon-path"}, kBadInput,
           "spec.measure.workload.model.torchscript.path (--torchscript)");
  t.AlsoNaming({"\"/nonexistent/model.pt\" is not shared", "leave out --daemon-path", "torchscand --share"});
}

// Saved report and comparison files for compare-reports and render (no daemon involved).
void AddReportCases(Table& t, const std::string& dir, const std::string& good_report) {
  const std::string good = Slurp(good_report);
  const auto file = [&](const std::string& name, const std::string& content) {
    return Write(dir + "/report_" + name + ".json", content);
  };
  const auto both = [&](const std::string& name, const std::string& path, const std::string& field) {
    t.Client("compare-reports: " + name, {"compare-reports", good_report, path}, kBadInput, field);
    t.Client("render: " + name, {"render", path, "--format", "terminal"}, kBadInput, field);
  };
  both("schema_version 2",
       file("schema2", std::regex_replace(good, std::regex(R"("schema_version": 1)"), R"("schema_version": 2)")),
       "schema_version");
  both("unknown field", file("unknown", Replace(good, "{", R"({"turbo_mode": true,)")), "turbo_mode");
  both("truncated", file("truncated", good.substr(0, good.size() / 2)), "BenchmarkReport");
  both("100000 nested arrays", file("nested", R"({"work_unit": )" + Nested(100000, "[", "]") + "}"), "work_unit");
  both("empty file", file("empty", ""), "report_empty.json");
  both("a folder", dir, dir);
  both("/dev/zero", "/dev/zero", "/dev/zero");
  both("non-UTF-8 work_unit",
       file("non_utf8",
            std::regex_replace(good, std::regex(R"("work_unit": "samples")"), "\"work_unit\": \"sam\xff\xfeples\"")),
       "report_non_utf8.json");
  both("NaN block duration",
       file("nan_block", std::regex_replace(good, std::regex(R"("duration_s": [0-9.e-]+)"), R"("duration_s": "NaN")",
                                            std::regex_constants::format_first_only)),
       "timing.blocks[0]");
  t.Client("compare-reports: a comparison as a report", {"compare-reports", good_report, dir + "/comparison.json"},
           kBadInput, "is a comparison, not a report");
  t.Fix("torchscan-client render " + dir + "/comparison.json");
  t.Client("render --format pdf", {"render", good_report, "--format", "pdf"}, kBadInput, "--format");
  t.Client("render -o into a missing folder", {"render", good_report, "-o", dir + "/no/such/folder/x.html"}, kBadInput,
           "-o");
  t.Client("compare-reports --output is a file", {"compare-reports", good_report, good_report, "--output", good_report},
           kBadInput, "--output");
}

// Job ids through the client's jobs commands: never a path, and no --output written.
void AddJobIdCases(Table& t, const std::string& good_id, const std::string& out) {
  for (const std::string command : {"show", "cancel", "watch", "fetch"}) {
    t.Client("jobs " + command + " ../../etc/passwd", {"jobs", command, "../../etc/passwd"}, kBadInput, "id: no job");
  }
  t.Client("jobs fetch ../ID --output DIR", {"jobs", "fetch", "../" + good_id, "--output", out}, kBadInput,
           "id: no job");
  t.Client("jobs fetch ID --output a file",
           {"jobs", "fetch", good_id, "--output", out + "/../hostile_good/report.json"}, kBadInput, "--output");
  t.Client("jobs cancel a finished job", {"jobs", "cancel", good_id}, kBadInput, "only queued or running");
  t.Client("jobs list --limit -1", {"jobs", "list", "--limit", "-1"}, kBadInput, "limit");
  t.Client("jobs list --state bogus", {"jobs", "list", "--state", "bogus"}, kBadInput, "--state");
}

// gRPC requests the client never sends.
void AddGrpcCases(Table& t, const std::string& good_id) {
  const std::string traversal = "../../../../etc/passwd", long_id(10 << 10, 'j'), sibling = "../" + good_id;
  for (const auto& [what, id] : std::vector<std::pair<std::string, std::string>>{
           {"traversal id", traversal}, {"empty id", ""}, {"10 KB id", long_id}}) {
    t.Grpc(
        "GetJob " + what, [id = id](RawClient& r) { return r.GetJob(id); }, StatusCode::NOT_FOUND, "id");
    t.Grpc(
        "Cancel " + what, [id = id](RawClient& r) { return r.Cancel(id); }, StatusCode::NOT_FOUND, "id");
    t.Grpc(
        "FetchResult " + what,
        [id = id](RawClient& r) {
          v1::JobResult x;
          return r.Fetch(id, &x);
        },
        StatusCode::NOT_FOUND, "id");
    t.Grpc(
        "Watch " + what, [id = id](RawClient& r) { return r.Watch(id); }, StatusCode::NOT_FOUND, "id");
  }
  t.Grpc(
      "FetchResult ../job id",
      [sibling](RawClient& r) {
        v1::JobResult x;
        return r.Fetch(sibling, &x);
      },
      StatusCode::NOT_FOUND, "id");
  t.Grpc(
      "Cancel the finished good job", [good_id](RawClient& r) { return r.Cancel(good_id); },
      StatusCode::FAILED_PRECONDITION, "only queued or running jobs can be cancelled");
  t.Grpc(
      "Submit without a spec", [](RawClient& r) { return r.Submit({}, false); }, StatusCode::INVALID_ARGUMENT, "spec");
  t.Submit("Submit with the kind oneof unset", GoodSpecWith([](v1::JobSpec* s) { s->clear_measure(); }),
           StatusCode::INVALID_ARGUMENT, "measure, compare or calibrate");
  t.Submit(
      "Submit builtin enum 99", GoodSpecWith([](v1::JobSpec* s) {
        s->mutable_measure()->mutable_workload()->mutable_model()->set_builtin(static_cast<v1::ModelSpec::Builtin>(99));
      }),
      StatusCode::INVALID_ARGUMENT, "spec.measure.workload.model.builtin");
  t.Submit(
      "Submit execution_mode enum 42", GoodSpecWith([](v1::JobSpec* s) {
        s->mutable_measure()->mutable_workload()->set_execution_mode(static_cast<v1::WorkloadSpec::ExecutionMode>(42));
      }),
      StatusCode::INVALID_ARGUMENT, "spec.measure.workload.execution_mode");
  t.Submit("Submit dtype enum -7", GoodSpecWith([](v1::JobSpec* s) {
             s->mutable_measure()->mutable_workload()->set_dtype(static_cast<v1::WorkloadSpec::Precision>(-7));
           }),
           StatusCode::INVALID_ARGUMENT, "spec.measure.workload.dtype");
  t.Submit("Submit generated tensor dtype enum 9", GoodSpecWith([](v1::JobSpec* s) {
             v1::GeneratedTensor* g = s->mutable_measure()->mutable_workload()->add_inputs()->mutable_generated();
             g->add_shape(2);
             g->add_shape(128);
             g->set_dtype(static_cast<v1::GeneratedTensor::DType>(9));
           }),
           StatusCode::INVALID_ARGUMENT, "spec.measure.workload.inputs[0].generated.dtype");
  t.Submit("Submit check oneof unset in a compare", GoodSpecWith([](v1::JobSpec* s) {
             v1::CompareJob* c = s->mutable_compare();
             c->mutable_baseline()->mutable_model()->set_builtin(v1::ModelSpec::linear);
             c->mutable_candidate()->mutable_model()->set_builtin(v1::ModelSpec::linear);
           }),
           StatusCode::INVALID_ARGUMENT, "spec.compare.check");
  t.Submit("Submit compare with rounds -1", GoodSpecWith([](v1::JobSpec* s) {
             v1::CompareJob* c = s->mutable_compare();
             c->mutable_baseline()->mutable_model()->set_builtin(v1::ModelSpec::linear);
             c->mutable_candidate()->mutable_model()->set_builtin(v1::ModelSpec::linear);
             c->mutable_check()->set_skip(true);
             c->set_rounds(-1);
           }),
           StatusCode::INVALID_ARGUMENT, "spec.compare.rounds");
  t.Submit("Submit calibrate with a million pairs",
           GoodSpecWith([](v1::JobSpec* s) { s->mutable_calibrate()->set_pairs(1000000); }),
           StatusCode::INVALID_ARGUMENT, "spec.calibrate.pairs");
  t.Submit("Submit calibrate with a workload without a model",
           GoodSpecWith([](v1::JobSpec* s) { s->mutable_calibrate()->mutable_workload(); }),
           StatusCode::INVALID_ARGUMENT, "spec.calibrate.workload.model");
  t.Grpc(
      "ListJobs limit -1",
      [](RawClient& r) {
        v1::ListJobsRequest q;
        q.set_limit(-1);
        return r.List(q);
      },
      StatusCode::INVALID_ARGUMENT, "limit");
  t.Submit("Submit 8.5 MiB label", GoodSpecWith([](v1::JobSpec* s) { s->set_label(std::string(kOverUpload, 'x')); }),
           StatusCode::RESOURCE_EXHAUSTED, "max_upload_bytes");
  t.AlsoNaming({"refused unread"});
  // Far over max_upload_bytes (but within gRPC's receive limit, receive_limits.h): refused from its
  // size before it is parsed, naming the limit.
  v1::SubmitRequest huge;
  *huge.mutable_spec() = GoodSpecWith([](v1::JobSpec* s) { s->set_label(std::string(100'000'000, 'x')); });
  const std::string huge_bytes = std::to_string(huge.ByteSizeLong());
  t.Submit("Submit 100 MB label", std::move(*huge.mutable_spec()), StatusCode::RESOURCE_EXHAUSTED,
           "max_upload_bytes 8388608");
  t.AlsoNaming({"spec: the request's " + huge_bytes + " bytes exceed", "refused unread", "torchscand --max-upload"});
  // proto3 strings must be UTF-8: the daemon reads each request itself and names the field
  // (gRPC's generated handlers would answer INTERNAL with an empty message).
  t.Submit("Submit 1 MB label", GoodSpecWith([](v1::JobSpec* s) { s->set_label(std::string(1'000'000, 'x')); }),
           StatusCode::INVALID_ARGUMENT, "spec.label: holds 1000000 bytes, more than the 4096");
  t.Submit("Submit non-UTF-8 label", GoodSpecWith([](v1::JobSpec* s) { s->set_label("\xff\xfe\xc3"); }),
           StatusCode::INVALID_ARGUMENT, "spec.label: is not UTF-8 (3 bytes)");
  t.Submit("Submit non-UTF-8 input name", GoodSpecWith([](v1::JobSpec* s) {
             v1::InputSpec* input = s->mutable_measure()->mutable_workload()->add_inputs();
             input->set_name("x\xc3");
             input->mutable_generated()->add_shape(2);
           }),
           StatusCode::INVALID_ARGUMENT, "spec.measure.workload.inputs[0].name: is not UTF-8");
  t.Submit("Submit non-UTF-8 input_metadata key", GoodSpecWith([](v1::JobSpec* s) {
             (*s->mutable_measure()->mutable_workload()->mutable_input_metadata())["rev\xff"] = "v3";
           }),
           StatusCode::INVALID_ARGUMENT, "spec.measure.workload.input_metadata: a key is not UTF-8");
  t.Submit("Submit non-UTF-8 input_metadata value", GoodSpecWith([](v1::JobSpec* s) {
             (*s->mutable_measure()->mutable_workload()->mutable_input_metadata())["dataset"] = "v\xff";
           }),
           StatusCode::INVALID_ARGUMENT, "spec.measure.workload.input_metadata[\"dataset\"]: is not UTF-8");
  t.Submit("Submit non-UTF-8 check method", GoodSpecWith([](v1::JobSpec* s) {
             v1::CompareJob* c = s->mutable_compare();
             c->mutable_baseline()->mutable_model()->set_builtin(v1::ModelSpec::linear);
             c->mutable_candidate()->mutable_model()->set_builtin(v1::ModelSpec::linear);
             c->mutable_check()->mutable_torchscript()->set_path("/check.pt");
             c->mutable_check()->mutable_torchscript()->set_method("\xe2\x9c");
           }),
           StatusCode::INVALID_ARGUMENT, "spec.compare.check.torchscript.method: is not UTF-8");
  for (const std::string method : {"GetJob", "Cancel", "FetchResult", "Watch"}) {
    t.Grpc(
        method + " non-UTF-8 id",
        [method](RawClient& r) {
          const std::string id = "job-\xff";
          if (method == "GetJob") return r.GetJob(id);
          if (method == "Cancel") return r.Cancel(id);
          if (method == "Watch") return r.Watch(id);
          v1::JobResult x;
          return r.Fetch(id, &x);
        },
        StatusCode::INVALID_ARGUMENT, "id: is not UTF-8 (5 bytes)");
  }
  // Bytes no protobuf encoder writes: refused naming where the encoding breaks.
  t.Grpc(
      "Submit bytes cut short", [](RawClient& r) { return r.Bytes("Submit", std::string("\x0a\x7f\x0a\x01x", 5)); },
      StatusCode::INVALID_ARGUMENT,
      "request: malformed protobuf at byte 0 of the request (a length of 127 bytes runs past the end of its "
      "message); send a serialized torchscan.v1.SubmitRequest");
  t.Grpc(
      "ListJobs bytes with wire type 7", [](RawClient& r) { return r.Bytes("ListJobs", "\x17"); },
      StatusCode::INVALID_ARGUMENT, "request: malformed protobuf at byte 0");
  t.Submit("Submit device of 10 KB", GoodSpecWith([](v1::JobSpec* s) {
             s->mutable_measure()->mutable_workload()->set_device(std::string(10 << 10, 'd'));
           }),
           StatusCode::INVALID_ARGUMENT, "spec.measure.workload.device");
}

// `zip` (a saved TorchScript module) as a newer PyTorch would write it: its version record
// says 99 (LibTorch 1.13 reads up to 10), both of the record's CRC-32s updated so that the
// archive stays valid and only the version is wrong.
std::string FromNewerPyTorch(std::string zip) {
  const auto u16 = [&](size_t at) {
    return static_cast<uint32_t>(static_cast<unsigned char>(zip[at])) |
           static_cast<uint32_t>(static_cast<unsigned char>(zip[at + 1])) << 8;
  };
  const auto put32 = [&](size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) zip[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  const std::string version = "99";
  uint32_t crc = 0xffffffffu;
  for (char c : version) {
    crc ^= static_cast<unsigned char>(c);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  crc = ~crc;
  const auto u32 = [&](size_t at) { return u16(at) | u16(at + 2) << 16; };
  const auto is_version = [](const std::string& name) {
    return name.size() >= 8 && name.compare(name.size() - 8, 8, "/version") == 0;
  };
  bool patched = false;
  // The central directory says where each record is; a record's CRC is there, and in its local
  // header or, when the writer streamed it (flag bit 3, as LibTorch's does), in the data
  // descriptor after its bytes.
  for (size_t c = zip.find("PK\x01\x02"); c != std::string::npos; c = zip.find("PK\x01\x02", c + 4)) {
    if (!is_version(zip.substr(c + 46, u16(c + 28))) || u16(c + 10) != 0 || u32(c + 20) != 2) continue;
    const size_t local = u32(c + 42);
    const size_t data = local + 30 + u16(local + 26) + u16(local + 28);
    zip.replace(data, 2, version);
    put32(c + 16, crc);
    if (u16(local + 6) & 8) put32(data + 2 + (zip.compare(data + 2, 4, "PK\x07\x08") == 0 ? 4 : 0), crc);
    else put32(local + 14, crc);
    patched = true;
  }
  if (!patched) ADD_FAILURE() << "the module has no stored 2-byte version record to patch";
  return zip;
}

// The problems the first hour with one's own model met (issue 11): each message names the
// problem and the fix.
void AddGuidanceCases(Table& t, const std::string& dir, const std::string& module, const std::string& work_module,
                      const std::string& good_out) {
  const auto file = [&](const std::string& name, const std::string& content) {
    return Write(dir + "/" + name, content);
  };
  const std::string linear_job = file("guidance_linear.json", MeasureJob(kLinear));
  t.JobFile("job file field typo minRunTime", file("typo.json", MeasureJob(kLinear, R"("minRunTime": 1)")), kBadInput,
            "options.minRunTime: MeasurementOptions has no field");
  t.Fix("did you mean min_run_time_s?");
  t.Client("flag typo --min-runtime", {"measure", "--min-runtime", "1"}, kBadInput, "unknown flag --min-runtime");
  t.Fix("did you mean --min-run-time?");
  t.Client("subcommand typo mesure", {"mesure", "--model", "linear"}, kBadInput, "unknown command mesure");
  t.Fix("did you mean measure?");
  t.Client("render a TorchScript module", {"render", module}, kBadInput, "is not a report or comparison JSON file");
  t.Fix("torchscan-client measure --torchscript " + module);
  t.Client("render a job file", {"render", linear_job}, kBadInput, "is a job file (JobSpec), not a result");
  t.Fix("torchscan-client measure --job " + linear_job);
  t.Client("compare-reports of a module", {"compare-reports", module, good_out + "/report.json"}, kBadInput,
           "it is a zip archive");
  t.Fix("torchscan-client compare --baseline");
  t.Client("jobs show job-999", {"jobs", "show", "job-999"}, kBadInput, "no job \"job-999\"");
  t.Fix("`torchscan-client jobs list`");
  t.Client("--output is a file", {"measure", "--output", good_out + "/report.json"}, kBadInput,
           "report.json is a file, not a folder");
  t.Fix("give a folder");
  t.Client("--output would overwrite", {"measure", "--model", "linear", "--output", good_out}, kBadInput,
           good_out + "/report.json already exists");
  t.Fix("add --force");
  t.Client("flags beside --job",
           {"measure", "--model", "resnet18", "--min-run-time", "1", "--rss", "--job", linear_job}, kBadInput,
           "--model: cannot be combined with --job " + linear_job);
  t.Fix("edit the file or leave out --job");
  t.Client("--device tpu names the flag", {"measure", "--device", "tpu"}, kBadInput,
           "spec.measure.workload.device (--device)");
  t.Fix("devices:");
  // Worker cases: the input that does not fit, a module from a newer PyTorch.
  t.Client("inputs that do not fit the module",
           {"measure", "--torchscript", work_module, "--input", "32x65", "--min-run-time", "0.02"}, kJobFailed,
           "the inputs do not fit the model: forward(input0: Tensor[32, 65] float32) on cpu failed: ");
  t.Fix("the method is forward(x: Tensor): it takes one input per argument, in that order");
  t.Fix("(WorkloadSpec.inputs (--input/--input-file))");
  const std::string newer = file("newer.pt", FromNewerPyTorch(Slurp(work_module)));
  t.Client("a module from a newer PyTorch",
           {"measure", "--torchscript", newer, "--input", "32x64", "--min-run-time", "0.02"}, kJobFailed,
           std::string("than this daemon's LibTorch ") + TORCHSCAN_LIBTORCH_VERSION);
  t.Fix("save it with PyTorch " TORCHSCAN_LIBTORCH_VERSION);
}

// ------------------------------------------------------------------ the test

std::string SubmittedId(const std::string& err) {
  std::smatch m;
  return std::regex_search(err, m, std::regex(R"(\[([^\]]+)\] submitted)")) ? m[1].str() : "";
}

std::string FirstLine(const std::string& text) { return text.substr(0, std::min(text.find('\n'), size_t{160})); }

// N in README.md's "`//tests:hostile_input_test` (N cases" (line breaks allowed between words).
std::optional<int> CountInReadme(const std::string& readme) {
  std::smatch m;
  if (!std::regex_search(readme, m, std::regex(R"(`//tests:hostile_input_test`\s+\((\d+)\s+cases)")))
    return std::nullopt;
  return std::stoi(m[1].str());
}

TEST(HostileInput, EveryCaseIsRefusedNamingTheFieldAndTheDaemonKeepsServing) {
  const std::string state_dir = TempDir("hostile_state");
  const std::string dir = TempDir("hostile_files");
  // Sandboxed (the default), sharing /dev/zero and the case files, so that hostile paths
  // there reach the worker's own defences.
  TestDaemon daemon(state_dir, {"--max-upload", std::to_string(kMaxUpload), "--job-wall-time", "60", "--share",
                                "/dev/zero", "--share", dir});
  RawClient raw(daemon.address());

  // One good job first: its stored result must survive every case byte for byte.
  const std::string good_out = TempDir("hostile_good");
  const CommandResult good =
      daemon.Client({"measure", "--model", "linear", "--min-run-time", "0.02", "--output", good_out});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  const std::string good_id = SubmittedId(good.err);
  ASSERT_FALSE(good_id.empty()) << good.err;
  v1::JobResult fetched;
  ASSERT_TRUE(raw.Fetch(good_id, &fetched).ok());
  const std::string good_dir = state_dir + "/jobs/" + good_id;
  const std::map<std::string, std::string> good_files = Snapshot(good_dir);
  ASSERT_EQ(good_files.count("result.json"), 1u);

  // TorchScript fixtures: a real module, then broken copies of it.
  ASSERT_EQ(e2e::Run(Runfile("tests/make_check_modules"), {dir}).exit_code, 0);
  ASSERT_EQ(e2e::Run(Runfile("tests/make_work_module"), {dir}).exit_code, 0);
  const std::string module = dir + "/pass.pt", module_bytes = Slurp(module);
  ASSERT_GT(module_bytes.size(), 100u);
  const std::string truncated = Write(dir + "/truncated.pt", module_bytes.substr(0, module_bytes.size() / 2));
  std::string noise(4096, '\0');
  uint32_t x = 2463534242u;
  for (char& c : noise) c = static_cast<char>((x ^= x << 13, x ^= x >> 17, x ^= x << 5) & 0xff);
  const std::string random = Write(dir + "/random.pt", noise);
  const std::string empty = Write(dir + "/empty.pt", "");
  ASSERT_EQ(daemon.Client({"compare-reports", good_out + "/report.json", good_out + "/report.json", "--output", dir})
                .exit_code,
            0);

  Table table(daemon, raw);
  AddJobFileCases(table, dir, module);
  AddFlagCases(table, dir, empty, module);
  AddReportCases(table, dir, good_out + "/report.json");
  AddGrpcCases(table, good_id);
  const std::string never_written = TempDir("hostile_never_written");
  AddJobIdCases(table, good_id, never_written);
  AddWorkerCases(table, dir, truncated, random, state_dir, good_id);
  AddGuidanceCases(table, dir, module, dir + "/work.pt", good_out);

  int ran = 0, crashes = 0, damaged = 0;
  const int pid = daemon.pid();
  for (const Case& c : table.cases()) {
    ++ran;
    const auto start = std::chrono::steady_clock::now();
    const Outcome got = c.send();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("case %-55s got %d (want %d) in %.2f s: %s\n", c.name.c_str(), got.code, c.expected, seconds,
                FirstLine(got.message).c_str());
    EXPECT_EQ(got.code, c.expected) << c.name << ": " << got.message.substr(0, 2000);
    std::vector<std::string> parts = {c.must_contain};
    parts.insert(parts.end(), c.also_contains.begin(), c.also_contains.end());
    for (const std::string& part : parts)
      EXPECT_NE(got.message.find(part), std::string::npos)
          << c.name << ": the message does not name \"" << part << "\": " << got.message.substr(0, 2000);
    EXPECT_LT(seconds, kCaseSeconds) << c.name << " took too long (a hang, not a refusal)";

    const bool alive = ::kill(pid, 0) == 0 && daemon.Running();
    const grpc::Status info = raw.Info();
    if (!alive || !info.ok()) {
      ++crashes;
      ADD_FAILURE() << c.name << ": the daemon " << (alive ? "stopped answering: " + info.error_message() : "died");
      if (daemon.Running()) daemon.Kill9();
      daemon.Start();
    }
    v1::JobResult now;
    const bool same = raw.Fetch(good_id, &now).ok() &&
                      google::protobuf::util::MessageDifferencer::Equals(now, fetched) &&
                      Snapshot(good_dir) == good_files;
    if (!same) {
      ++damaged;
      ADD_FAILURE() << c.name << ": the stored result of " << good_id << " changed";
    }
  }

  EXPECT_TRUE(fs::is_empty(never_written)) << "a refused jobs fetch wrote into its --output folder";
  // Nothing outside jobs/ but the lock, the warm spare's stderr, the sandbox's mount point and
  // the spare's own folder; inside, job folders holding
  // only the store's files.
  ASSERT_TRUE(fs::exists(good_dir + "/result.json")) << "no stored job: the checks below would see nothing";
  for (const auto& entry : fs::directory_iterator(state_dir)) {
    const std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "jobs" || name == "torchscand.lock" || name == "spare-worker.stderr" || name == "sandbox" ||
                name == "spare-job")
        << "stray file in the state dir: " << name;
  }
  for (const auto& job : fs::directory_iterator(state_dir + "/jobs")) {
    EXPECT_TRUE(std::regex_match(job.path().filename().string(), std::regex(R"(job-\d{6})"))) << job.path();
    for (const auto& f : fs::directory_iterator(job.path())) {
      const std::string name = f.path().filename().string();
      EXPECT_TRUE(name == "job.json" || name == "spec.binpb" || name == "result.json" || name == "worker.stderr")
          << "stray file " << f.path();
    }
  }

  std::printf("hostile input: %d cases, %d daemon crashes, %d stored results damaged\n", ran, crashes, damaged);
  EXPECT_EQ(ran, static_cast<int>(table.cases().size())) << "cases declared but not run";
  // README.md states the count; it must be the count run, so that neither drifts silently.
  const std::optional<int> stated = CountInReadme(Slurp(Runfile("README.md")));
  ASSERT_TRUE(stated.has_value()) << "README.md does not say \"`//tests:hostile_input_test` (N cases\"";
  EXPECT_EQ(*stated, ran) << "README.md states " << *stated << " hostile input cases; the test ran " << ran
                          << ": make them agree";
  EXPECT_EQ(crashes, 0);
  EXPECT_EQ(damaged, 0);
}

}  // namespace
}  // namespace torchscan::e2e
