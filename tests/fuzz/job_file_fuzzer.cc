// Fuzz target: job files, from the client's loader to the worker's. The bytes go the way a
// `torchscan-client measure --job FILE` job goes:
//   client/job_flags.h LoadJobFile (strict JSON mapping of JobSpec)
//   → spec/job_spec.h ValidateJobSpec (torchscand's Submit) → WithDaemonDefaults
//   → saved in protobuf's binary encoding (the job store's spec.binpb, worker/job_spec_file.h)
//   and as JSON (a job folder's spec.json by hand or from Slurm) → read back (torchscan-worker).
//
// Properties checked for every input (FuzzFail aborts when one breaks):
//  - LoadJobFile returns; an error is InvalidArgument naming the file.
//  - What LoadJobFile refuses but the strict JSON mapping parses (no kind, a control
//    character in a text field) a daemon refuses too: a job file and a gRPC submission
//    meet the same rules.
//  - ValidateJobSpec returns OK or one of the codes its header lists, with a message that
//    names the field ("spec..."); a daemon with more devices and an RSS child accepts
//    everything a default daemon accepts.
//  - The spec, and the spec with the daemon's defaults, saved as JSON and as binary load
//    back (JSON strictly) as the same message (what the worker reads is what was submitted).
// Verdict: kAccepted when a default daemon (cpu only, no RSS child) would queue the job.
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "client/job_flags.h"
#include "io/proto_json.h"
#include "proto/service.pb.h"
#include "spec/job_spec.h"
#include "tests/fuzz/fuzz_target.h"

namespace torchscan::fuzz {
namespace {

void ExpectSavedSpecLoads(const v1::JobSpec& spec, const std::string& what) {
  v1::JobSpec reloaded;
  if (absl::Status s = ParseJsonStrict(ToJson(spec), "spec.json", &reloaded); !s.ok())
    FuzzFail(absl::StrCat(what, ": the saved spec does not load"), s.ToString());
  ExpectSameMessage(spec, reloaded, what);
  v1::JobSpec from_binary;
  if (!from_binary.ParseFromString(spec.SerializeAsString()))
    FuzzFail(absl::StrCat(what, ": the binary spec does not load"), "");
  ExpectSameMessage(spec, from_binary, absl::StrCat(what, " (binary)"));
}

// `input` was refused by LoadJobFile: if it parses as a JobSpec all the same, ValidateJobSpec
// must refuse it too, even on a daemon that owns more.
void ExpectDaemonRefusesToo(std::string_view input, const spec::JobSpecLimits& limits) {
  v1::JobSpec parsed;
  if (!ParseJsonStrict(input, "job.json", &parsed).ok()) return;
  const absl::Status status = spec::ValidateJobSpec(parsed, limits);
  if (status.ok()) FuzzFail("a daemon accepts a job that LoadJobFile refuses", parsed.DebugString());
  ExpectJobSpecVerdict(status, "ValidateJobSpec of a job LoadJobFile refuses");
}

}  // namespace

Verdict FuzzOne(std::string_view input) {
  InputFile& file = InputFile::Get();
  file.Write(input);
  spec::JobSpecLimits generous;
  generous.devices = {"cpu", "cuda:0"};
  generous.rss_available = true;
  const absl::StatusOr<v1::JobSpec> spec = LoadJobFile(file.path());
  if (!spec.ok()) {
    ExpectError(spec.status(), absl::StatusCode::kInvalidArgument, absl::StrCat(file.path(), ": "), "LoadJobFile");
    ExpectDaemonRefusesToo(input, generous);
    return Verdict::kRejected;
  }

  const absl::Status by_default = spec::ValidateJobSpec(*spec, spec::JobSpecLimits{});
  ExpectJobSpecVerdict(by_default, "ValidateJobSpec, default limits");
  const absl::Status by_generous = spec::ValidateJobSpec(*spec, generous);
  ExpectJobSpecVerdict(by_generous, "ValidateJobSpec, more devices and an RSS child");
  if (by_default.ok() && !by_generous.ok())
    FuzzFail("a daemon with more devices and an RSS child refused what a default daemon accepts",
             by_generous.ToString());

  ExpectSavedSpecLoads(*spec, "the job file saved as JSON");
  v1::DaemonConfig config;
  config.set_default_intra_op_threads(2);
  config.set_default_inter_op_threads(1);
  ExpectSavedSpecLoads(spec::WithDaemonDefaults(*spec, config), "the spec with the daemon's defaults");
  return by_default.ok() ? Verdict::kAccepted : Verdict::kRejected;
}

}  // namespace torchscan::fuzz
