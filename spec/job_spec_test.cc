#include "spec/job_spec.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace torchscan::spec {
namespace {

v1::JobSpec LinearMeasure() {
  v1::JobSpec spec;
  spec.mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  return spec;
}

v1::JobSpec LinearCompare() {
  v1::JobSpec spec;
  spec.mutable_compare()->mutable_baseline()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  spec.mutable_compare()->mutable_candidate()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_rtol(1e-4);
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_atol(1e-5);
  return spec;
}

void ExpectError(const v1::JobSpec& spec, absl::StatusCode code, const std::string& field,
                 const JobSpecLimits& limits = {}) {
  absl::Status s = ValidateJobSpec(spec, limits);
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_EQ(s.message().find(field + ":"), 0u) << s;
}

TEST(JobSpec, GoodSpecsPass) {
  EXPECT_TRUE(ValidateJobSpec(LinearMeasure(), {}).ok());
  EXPECT_TRUE(ValidateJobSpec(LinearCompare(), {}).ok());
}

// Every rule of one workload, walked: the worker's check (ValidateWorkloadFields, before it
// builds) and the daemon's (ValidateJobSpec, before it queues) refuse each with the same field
// and words, so no job the daemon queued is refused by the worker for a rule it could check
// (issue 42: freeze on a built-in was queued, then refused by the worker).
TEST(WorkloadFields, TheDaemonRefusesEveryRuleTheWorkerChecks) {
  const auto builtin = [] {
    v1::WorkloadSpec w;
    w.mutable_model()->set_builtin(v1::ModelSpec::linear);
    return w;
  };
  const auto script = [] {
    v1::WorkloadSpec w;
    w.mutable_model()->mutable_torchscript()->set_path("/models/mlp.pt");
    w.add_inputs()->mutable_generated()->add_shape(4);
    return w;
  };
  struct Case {
    std::string field, words;
    std::function<void(v1::WorkloadSpec*)> spoil;
    bool from_builtin = true;
  };
  const std::vector<Case> cases = {
      {"w.model", "required: set builtin", [](v1::WorkloadSpec* w) { w->clear_model(); }},
      {"w.model.builtin", "choose ",
       [](v1::WorkloadSpec* w) { w->mutable_model()->set_builtin(v1::ModelSpec::builtin_unspecified); }},
      {"w.freeze", "applies to TorchScript models only", [](v1::WorkloadSpec* w) { w->set_freeze(true); }},
      {"w.optimize_for_inference", "applies to TorchScript models only",
       [](v1::WorkloadSpec* w) { w->set_optimize_for_inference(true); }},
      {"w.work_units", "applies to models from a file only", [](v1::WorkloadSpec* w) { w->set_work_units(8); }},
      {"w.work_unit", "applies to models from a file only", [](v1::WorkloadSpec* w) { w->set_work_unit("rows"); }},
      {"w.model.torchscript", "set path or module_bytes",
       [](v1::WorkloadSpec* w) { w->mutable_model()->mutable_torchscript()->clear_path(); }, false},
      {"w.inputs", "a TorchScript module needs its inputs", [](v1::WorkloadSpec* w) { w->clear_inputs(); }, false},
      {"w.work_units", "-2 is negative", [](v1::WorkloadSpec* w) { w->set_work_units(-2); }, false},
      {"w.execution_mode", "99 is not one of",
       [](v1::WorkloadSpec* w) { w->set_execution_mode(static_cast<v1::WorkloadSpec::ExecutionMode>(99)); }},
      {"w.dtype", "99 is not one of",
       [](v1::WorkloadSpec* w) { w->set_dtype(static_cast<v1::WorkloadSpec::Precision>(99)); }},
      {"w.inputs[0]", "set generated, tensor_file or tensor_bytes",
       [](v1::WorkloadSpec* w) { w->mutable_inputs(0)->clear_generated(); }, false},
      {"w.inputs[0].generated.shape[0]", "-4 is negative",
       [](v1::WorkloadSpec* w) { w->mutable_inputs(0)->mutable_generated()->set_shape(0, -4); }, false},
      {"w.inputs[0].tensor_bytes", "is empty", [](v1::WorkloadSpec* w) { w->mutable_inputs(0)->set_tensor_bytes(""); },
       false},
      {"w.input_metadata", "key \"seed\"", [](v1::WorkloadSpec* w) { (*w->mutable_input_metadata())["seed"] = "1"; }},
  };
  for (const Case& c : cases) {
    v1::WorkloadSpec w = c.from_builtin ? builtin() : script();
    ASSERT_TRUE(ValidateWorkloadFields("w", w).ok()) << c.field;
    c.spoil(&w);
    const absl::Status worker = ValidateWorkloadFields("w", w);
    EXPECT_EQ(worker.code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_EQ(worker.message().find(c.field + ": "), 0u) << c.field << ": " << worker;
    EXPECT_NE(worker.message().find(c.words), std::string::npos) << c.field << ": " << worker;
    v1::JobSpec job;
    *job.mutable_measure()->mutable_workload() = w;
    const absl::Status daemon = ValidateJobSpec(job, {});
    EXPECT_EQ(daemon.message(), "spec.measure.workload" + std::string(worker.message()).substr(1)) << c.field;
  }
}

TEST(JobSpec, KindIsRequired) { ExpectError(v1::JobSpec(), absl::StatusCode::kInvalidArgument, "spec"); }

TEST(JobSpec, WorkloadsAndModelsAreRequired) {
  v1::JobSpec spec;
  spec.mutable_measure();
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload");
  spec.mutable_measure()->mutable_workload();
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.model");
  spec.mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::builtin_unspecified);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.model.builtin");
  spec.mutable_measure()->mutable_workload()->mutable_model()->mutable_torchscript();
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.model.torchscript");

  v1::JobSpec compare = LinearCompare();
  compare.mutable_compare()->clear_candidate();
  ExpectError(compare, absl::StatusCode::kInvalidArgument, "spec.compare.candidate");
  compare = LinearCompare();
  compare.mutable_compare()->mutable_baseline()->add_inputs();
  ExpectError(compare, absl::StatusCode::kInvalidArgument, "spec.compare.baseline.inputs[0]");
}

TEST(JobSpec, DevicesMustBelongToTheDaemon) {
  v1::JobSpec spec = LinearMeasure();
  spec.mutable_measure()->mutable_workload()->set_device("cuda:0");
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.device");
  // A GPU asked of a CPU daemon: what it offers, and where a GPU job goes instead.
  EXPECT_EQ(ValidateJobSpec(spec, {}).message(),
            "spec.measure.workload.device: \"cuda:0\" is not a device of this daemon: it offers cpu (a daemon offers "
            "the devices its --device flags or config list); use device cpu, or submit to a daemon on a GPU machine "
            "that offers cuda:0 (--daemon ADDRESS, or TORCHSCAN_DAEMON)");
  JobSpecLimits two_gpus;
  two_gpus.devices = {"cpu", "cuda:0", "cuda:1"};
  spec.mutable_measure()->mutable_workload()->set_device("cuda:2");
  EXPECT_EQ(ValidateJobSpec(spec, two_gpus).message(),
            "spec.measure.workload.device: \"cuda:2\" is not a device of this daemon (devices: cpu, cuda:0, cuda:1); "
            "use one of them");
  spec.mutable_measure()->mutable_workload()->set_device("cuda:0");
  JobSpecLimits limits;
  limits.devices = {"cpu", "cuda:0"};
  EXPECT_TRUE(ValidateJobSpec(spec, limits).ok());
  spec.mutable_measure()->mutable_workload()->set_device("cuda");  // cuda:0 by another name
  EXPECT_TRUE(ValidateJobSpec(spec, limits).ok());
  spec.mutable_measure()->mutable_workload()->set_device("tpu");
  EXPECT_EQ(ValidateJobSpec(spec, limits).message(),
            "spec.measure.workload.device: device 'tpu' cannot be used: unknown device type; use 'cpu' or 'cuda:N' "
            "(this daemon's devices: cpu, cuda:0)");
}

TEST(JobSpec, HostPassesAreRefusedOnAGpuJobNamingTheOption) {
  JobSpecLimits limits;
  limits.devices = {"cpu", "cuda:0"};
  limits.rss_available = true;
  v1::JobSpec spec = LinearMeasure();
  spec.mutable_measure()->mutable_workload()->set_device("cuda:0");
  spec.mutable_options()->set_rss(true);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.options.rss", limits);
  EXPECT_NE(ValidateJobSpec(spec, limits).message().find("; submit without it, or run the job on cpu"),
            std::string::npos);
  spec.mutable_options()->set_rss(false);
  spec.mutable_options()->set_instructions(true);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.options.instructions", limits);
  spec.mutable_measure()->mutable_workload()->set_device("cpu");
  EXPECT_TRUE(ValidateJobSpec(spec, limits).ok());
  v1::JobSpec compare = LinearCompare();
  compare.mutable_compare()->mutable_candidate()->set_device("cuda:0");
  compare.mutable_options()->set_rss(true);
  ExpectError(compare, absl::StatusCode::kInvalidArgument, "spec.options.rss", limits);
}

TEST(JobSpec, OptionsMustBeNonNegative) {
  v1::JobSpec spec = LinearMeasure();
  spec.mutable_options()->set_min_run_time_s(-1);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.options.min_run_time_s");
  spec = LinearMeasure();
  spec.mutable_options()->set_intra_op_threads(-2);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.options.intra_op_threads");
  spec = LinearCompare();
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_atol(-1);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.check.declarative.atol");
}

TEST(JobSpec, RssNeedsAChild) {
  v1::JobSpec spec = LinearMeasure();
  spec.mutable_options()->set_rss(true);
  ExpectError(spec, absl::StatusCode::kFailedPrecondition, "spec.options.rss");
  JobSpecLimits limits;
  limits.rss_available = true;
  EXPECT_TRUE(ValidateJobSpec(spec, limits).ok());
}

TEST(JobSpec, RoundsOutOfRangeAreNamed) {
  v1::JobSpec spec = LinearCompare();
  spec.mutable_compare()->set_rounds(101);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.rounds");
  spec.mutable_compare()->set_rounds(-1);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.rounds");
  spec.mutable_compare()->set_rounds(0);
  for (double bad : {-0.01, kMaxSmallestChange + 0.01, std::nan("")}) {
    spec.mutable_compare()->set_smallest_change(bad);
    ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.smallest_change");
  }
  spec.mutable_compare()->set_smallest_change(0.02);
  for (double bad : {-1.0, kMaxCompareMaxTimeS + 1, std::nan("")}) {
    spec.mutable_compare()->set_max_time_s(bad);
    ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.max_time_s");
  }
  spec.mutable_compare()->set_max_time_s(0);
  for (double bad : {-0.5, 0.01, 1.01, std::nan("")}) {
    spec.mutable_compare()->set_max_other_cpu_share(bad);
    ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.max_other_cpu_share");
  }
  for (double good : {0.0, kMinMaxOtherCpuShare, 0.5, 1.0}) {
    spec.mutable_compare()->set_max_other_cpu_share(good);
    EXPECT_TRUE(ValidateJobSpec(spec, {}).ok()) << good;
  }
}

TEST(JobSpec, CalibrateJobsTakeTheReferenceWorkloadOrTheirOwnAndNameBadPairsAndRounds) {
  v1::JobSpec spec;
  spec.mutable_calibrate();  // no workload: the built-in reference
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok()) << ValidateJobSpec(spec, {});
  for (int pairs : {-1, kMaxCalibrationPairs + 1}) {
    v1::JobSpec bad = spec;
    bad.mutable_calibrate()->set_pairs(pairs);
    ExpectError(bad, absl::StatusCode::kInvalidArgument, "spec.calibrate.pairs");
  }
  spec.mutable_calibrate()->set_pairs(kMaxCalibrationPairs);
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());
  for (int rounds : {-1, kMaxRounds + 1}) {
    v1::JobSpec bad = spec;
    bad.mutable_calibrate()->set_rounds(rounds);
    ExpectError(bad, absl::StatusCode::kInvalidArgument, "spec.calibrate.rounds");
  }
  // A workload given is checked like a measurement's.
  spec.mutable_calibrate()->mutable_workload()->mutable_model();
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.calibrate.workload.model");
  spec.mutable_calibrate()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());
}

TEST(JobSpec, ACompareJobCarriesTheCheckItsSubmitterChose) {
  v1::JobSpec spec = LinearCompare();
  spec.mutable_compare()->clear_check();
  const absl::Status none = ValidateJobSpec(spec, {});
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.check");
  for (const char* choice : {"rtol and atol", "--check-module", "--no-check", "does not choose a tolerance"})
    EXPECT_NE(none.message().find(choice), std::string::npos) << none;

  spec = LinearCompare();
  spec.mutable_compare()->mutable_check()->mutable_declarative()->clear_atol();
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.check.declarative.atol");
  spec = LinearCompare();
  spec.mutable_compare()->mutable_check()->mutable_declarative()->clear_rtol();
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.check.declarative.rtol");
  spec = LinearCompare();
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_rtol(std::nan(""));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.check.declarative.rtol");
  spec = LinearCompare();
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_compare_dtype(
      static_cast<v1::DeclarativeCheck::CompareDType>(99));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.check.declarative.compare_dtype");
  spec.mutable_compare()->mutable_check()->mutable_declarative()->set_compare_dtype(v1::DeclarativeCheck::float32);
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());

  spec.mutable_compare()->mutable_check()->set_skip(false);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.check.skip");
  spec.mutable_compare()->mutable_check()->set_skip(true);
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());
}

TEST(JobSpec, CallerInputMetadataKeysAreNamesTorchScanDoesNotUse) {
  v1::JobSpec spec = LinearMeasure();
  auto& metadata = *spec.mutable_measure()->mutable_workload()->mutable_input_metadata();
  metadata["dataset_revision"] = "v3";
  metadata["tokenizer.version-2_b"] = "x";
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());
  for (const std::string& key :
       std::vector<std::string>{"seed", "input.x.seed", "", "has space", std::string(65, 'k'), "naïve"}) {
    v1::JobSpec bad = spec;
    (*bad.mutable_measure()->mutable_workload()->mutable_input_metadata())[key] = "v";
    ExpectError(bad, absl::StatusCode::kInvalidArgument, "spec.measure.workload.input_metadata");
  }
  v1::JobSpec long_value = spec;
  (*long_value.mutable_measure()->mutable_workload()->mutable_input_metadata())["notes"] = std::string(1025, 'v');
  ExpectError(long_value, absl::StatusCode::kInvalidArgument, "spec.measure.workload.input_metadata.notes");
}

TEST(JobSpec, TorchScriptChecksNeedASource) {
  v1::JobSpec spec = LinearCompare();
  spec.mutable_compare()->mutable_check()->mutable_torchscript()->set_method("verify");
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.compare.check.torchscript");
  spec.mutable_compare()->mutable_check()->mutable_torchscript()->set_path("/x.pt");
  EXPECT_TRUE(ValidateJobSpec(spec, JobSpecLimits()).ok());
}

// A sandboxed job sees only shared paths of the daemon's machine: a path elsewhere is refused
// at submission naming the field, the shared paths and both ways out; uploads always pass.
TEST(JobSpec, SandboxedJobsNameOnlySharedPaths) {
  JobSpecLimits limits;
  limits.sandboxed = true;
  limits.shared_paths = {"/data/models/", "/data/inputs"};
  v1::JobSpec spec = LinearCompare();
  v1::WorkloadSpec* baseline = spec.mutable_compare()->mutable_baseline();
  baseline->mutable_model()->mutable_torchscript()->set_path("/data/models/mlp.pt");
  baseline->add_inputs()->set_tensor_file("/data/inputs/x.pt");
  EXPECT_TRUE(ValidateJobSpec(spec, limits).ok()) << ValidateJobSpec(spec, limits);
  spec.mutable_compare()->mutable_check()->mutable_torchscript()->set_module_bytes("PK");  // uploaded
  EXPECT_TRUE(ValidateJobSpec(spec, limits).ok()) << ValidateJobSpec(spec, limits);

  for (const std::string outside : {"/home/alice/x.pt", "/data/inputs/../../etc/x.pt", "/data/inputsx/x.pt", "x.pt"}) {
    v1::JobSpec bad = spec;
    bad.mutable_compare()->mutable_baseline()->mutable_inputs(0)->set_tensor_file(outside);
    const absl::Status s = ValidateJobSpec(bad, limits);
    EXPECT_EQ(s.message().find("spec.compare.baseline.inputs[0].tensor_file: \"" + outside +
                               "\" is not shared with this daemon's sandboxed jobs (shared_paths: /data/models/, "
                               "/data/inputs); send the file with the job (leave out --daemon-path), or ask the "
                               "daemon's admin to share its folder (torchscand --share)"),
              0u)
        << s;
  }
  v1::JobSpec check = spec;
  check.mutable_compare()->mutable_check()->mutable_torchscript()->set_path("/srv/check.pt");
  ExpectError(check, absl::StatusCode::kInvalidArgument, "spec.compare.check.torchscript.path", limits);
  v1::JobSpec model = spec;
  model.mutable_compare()->mutable_baseline()->mutable_model()->mutable_torchscript()->set_path("/srv/m.pt");
  ExpectError(model, absl::StatusCode::kInvalidArgument, "spec.compare.baseline.model.torchscript.path", limits);
  limits.sandboxed = false;  // unsandboxed: the worker's own permissions decide
  EXPECT_TRUE(ValidateJobSpec(model, limits).ok());
}

TEST(JobSpec, LargeSpecsAreRefusedNamingTheLimit) {
  v1::JobSpec spec = LinearMeasure();
  spec.mutable_measure()->mutable_workload()->mutable_model()->mutable_torchscript()->set_module_bytes(
      std::string(2000, 'x'));
  JobSpecLimits limits;
  limits.max_upload_bytes = 1000;
  absl::Status s = ValidateJobSpec(spec, limits);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("max_upload_bytes 1000"), std::string::npos) << s;
}

TEST(JobSpec, WithoutUploadedBytesEmptiesTheBytesAndKeepsEverythingElse) {
  v1::JobSpec spec = LinearCompare();
  spec.mutable_compare()->mutable_baseline()->add_inputs()->set_tensor_file("/data/x.pt");
  v1::TorchScriptSpec* ts = spec.mutable_compare()->mutable_candidate()->mutable_model()->mutable_torchscript();
  ts->set_module_bytes("module");
  ts->set_source_name("/home/ann/mlp.pt");
  ts->set_method("fast");
  spec.mutable_compare()->mutable_candidate()->add_inputs()->set_tensor_bytes("tensor");
  spec.mutable_compare()->mutable_check()->mutable_torchscript()->set_module_bytes("check");
  const v1::JobSpec kept = WithoutUploadedBytes(spec);
  EXPECT_EQ(kept.compare().baseline().model().builtin(), v1::ModelSpec::linear);  // not turned into a module
  EXPECT_EQ(kept.compare().baseline().inputs(0).tensor_file(), "/data/x.pt");
  const v1::TorchScriptSpec& module = kept.compare().candidate().model().torchscript();
  EXPECT_TRUE(module.has_module_bytes());
  EXPECT_EQ(module.module_bytes(), "");
  EXPECT_EQ(module.source_name(), "/home/ann/mlp.pt");
  EXPECT_EQ(module.method(), "fast");
  EXPECT_TRUE(kept.compare().candidate().inputs(0).has_tensor_bytes());
  EXPECT_EQ(kept.compare().candidate().inputs(0).tensor_bytes(), "");
  EXPECT_EQ(kept.compare().check().torchscript().module_bytes(), "");
}

TEST(JobSpec, AnUploadOverTheLimitNamesEachFileLargestFirstAndTheWaysOut) {
  v1::JobSpec spec = LinearCompare();
  for (v1::WorkloadSpec* side :
       {spec.mutable_compare()->mutable_baseline(), spec.mutable_compare()->mutable_candidate()}) {
    v1::TorchScriptSpec* ts = side->mutable_model()->mutable_torchscript();
    ts->set_module_bytes(std::string(3 << 20, 'm'));
    ts->set_source_name("/home/ann/mlp.pt");
    v1::InputSpec* input = side->add_inputs();
    input->set_tensor_bytes(std::string(1500, 't'));
    input->set_source_name("/home/ann/x.pt");
  }
  spec.mutable_compare()->mutable_check()->mutable_torchscript()->set_module_bytes(std::string(4 << 20, 'c'));
  spec.mutable_compare()->mutable_check()->mutable_torchscript()->set_source_name("/home/ann/check.pt");
  const absl::Status s = CheckUploadSize(spec, 1 << 20);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  const std::string message(s.message());
  for (const char* part : {"spec: ", "exceed this daemon's max_upload_bytes 1048576 (", " > 1.0 MiB)",
                           "the files sent with it: /home/ann/mlp.pt 3.0 MiB x2, /home/ann/check.pt 4.0 MiB, "
                           "/home/ann/x.pt 1500 bytes x2;",
                           "torchscan-client --daemon-path", "torchscand --max-upload"})
    EXPECT_NE(message.find(part), std::string::npos) << part << " in " << message;
  EXPECT_TRUE(CheckUploadSize(spec, spec.ByteSizeLong()).ok());
  EXPECT_TRUE(CheckUploadSize(spec, 0).ok());  // no limit known
  EXPECT_EQ(ValidateJobSpec(spec, JobSpecLimits{1 << 20}).message(), s.message());
  // A spec over the limit without files: nothing to send another way.
  v1::JobSpec label = LinearMeasure();
  label.set_label(std::string(2000, 'x'));
  EXPECT_NE(CheckUploadSize(label, 1000).message().find("send a smaller job"), std::string::npos);
}

TEST(JobSpec, ASubmitRequestOverTheLimitIsRefusedFromItsSizeNamingTheLimit) {
  // The largest spec within the limit, wrapped in its request, passes: the bound allows for framing.
  v1::SubmitRequest request;
  request.mutable_spec()->set_label(std::string(1000 - 3, 'x'));  // tag + 2-byte length + 997 = 1000
  ASSERT_EQ(request.spec().ByteSizeLong(), 1000u);
  EXPECT_TRUE(CheckSubmitRequestSize(request.ByteSizeLong(), 1000).ok());
  EXPECT_TRUE(CheckSubmitRequestSize(1000 + kSubmitRequestFraming, 1000).ok());
  EXPECT_TRUE(CheckSubmitRequestSize(int64_t{1} << 40, 0).ok());  // no limit known

  const absl::Status s = CheckSubmitRequestSize(1000 + kSubmitRequestFraming + 1, 1000);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message().find("spec: the request's 1007 bytes exceed this daemon's max_upload_bytes 1000 (1007 bytes > "
                             "1000 bytes); refused unread"),
            0u)
      << s;
  const absl::Status huge = CheckSubmitRequestSize(100'000'018, 8 << 20);
  for (const char* part : {"100000018 bytes exceed this daemon's max_upload_bytes 8388608 (95.4 MiB > 8.0 MiB)",
                           "torchscan-client --daemon-path", "torchscand --max-upload"})
    EXPECT_NE(huge.message().find(part), std::string::npos) << part << " in " << huge;
}

TEST(JobSpec, DaemonDefaultsFillThreads) {
  v1::DaemonConfig config;
  config.set_default_intra_op_threads(2);
  config.set_default_inter_op_threads(3);
  v1::JobSpec spec = LinearMeasure();
  spec.mutable_options()->set_inter_op_threads(1);
  v1::JobSpec filled = WithDaemonDefaults(spec, config);
  EXPECT_EQ(filled.options().intra_op_threads(), 2);
  EXPECT_EQ(filled.options().inter_op_threads(), 1);
}

}  // namespace
}  // namespace torchscan::spec

namespace torchscan::spec {
namespace {

TEST(JobSpec, HostileWorkloadsNameTheirField) {
  v1::JobSpec spec = LinearMeasure();
  v1::WorkloadSpec* w = spec.mutable_measure()->mutable_workload();
  w->mutable_model()->set_builtin(static_cast<v1::ModelSpec::Builtin>(99));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.model.builtin");
  w->mutable_model()->set_builtin(v1::ModelSpec::linear);
  w->set_execution_mode(static_cast<v1::WorkloadSpec::ExecutionMode>(42));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.execution_mode");
  w->set_execution_mode(v1::WorkloadSpec::batch);
  w->set_dtype(static_cast<v1::WorkloadSpec::Precision>(-7));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.dtype");
  w->set_dtype(v1::WorkloadSpec::float32);
  v1::GeneratedTensor* g = w->add_inputs()->mutable_generated();
  g->add_shape(32);
  g->add_shape(-128);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.inputs[0].generated.shape[1]");
  g->set_shape(1, int64_t{1} << 40);
  g->add_shape(int64_t{1} << 40);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.inputs[0].generated.shape");
  g->clear_shape();
  g->set_dtype(static_cast<v1::GeneratedTensor::DType>(9));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.inputs[0].generated.dtype");
  g->set_dtype(v1::GeneratedTensor::float32);
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());

  w->mutable_model()->mutable_torchscript()->set_module_bytes("");
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.model.torchscript.module_bytes");
  w->mutable_model()->mutable_torchscript()->set_module_bytes("PK");
  w->clear_inputs();
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.inputs");
  w->add_inputs()->set_tensor_file(std::string(5000, 't'));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.inputs[0].tensor_file");
  w->mutable_inputs(0)->set_tensor_bytes("");
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.inputs[0].tensor_bytes");
  w->mutable_inputs(0)->set_tensor_bytes("PK");
  w->mutable_inputs(0)->set_source_name(std::string(5000, 'n'));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.inputs[0].source_name");
  w->mutable_inputs(0)->set_source_name("/home/ann/x.pt");
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());
  w->mutable_inputs(0)->set_tensor_file("/x.pt");
  w->mutable_model()->mutable_torchscript()->set_path(std::string(5000, 'p'));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.measure.workload.model.torchscript.path");
}

// A job submitted over gRPC meets the job-file rule (spec/printable_text.h).
TEST(JobSpec, ControlCharactersInTextFieldsAreRefusedNamingTheField) {
  v1::JobSpec label = LinearMeasure();
  label.set_label(std::string("a\0b", 3));
  ExpectError(label, absl::StatusCode::kInvalidArgument, "spec.label");
  v1::JobSpec name = LinearCompare();
  name.mutable_compare()->mutable_candidate()->add_inputs()->set_name("x\x1b[2J");
  ExpectError(name, absl::StatusCode::kInvalidArgument, "spec.compare.candidate.inputs[0].name");
  v1::JobSpec unit = LinearMeasure();
  unit.mutable_measure()->mutable_workload()->set_work_unit("images\n");
  ExpectError(unit, absl::StatusCode::kInvalidArgument, "spec.measure.workload.work_unit");
  v1::JobSpec fine = LinearMeasure();
  fine.set_label("Résumé 日本");
  EXPECT_TRUE(ValidateJobSpec(fine, {}).ok());
}

// The revision (--revision, e.g. a git commit) is text like the label: a history point is
// named by it in listings and pages.
TEST(JobSpec, TheRevisionIsPrintableTextOfBoundedLength) {
  v1::JobSpec spec = LinearMeasure();
  spec.set_revision("3f4013cd9a1e");
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());
  spec.set_revision(std::string(kMaxJobTextBytes, 'r'));
  EXPECT_TRUE(ValidateJobSpec(spec, {}).ok());
  spec.set_revision(std::string(kMaxJobTextBytes + 1, 'r'));
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.revision");
  EXPECT_NE(ValidateJobSpec(spec, {}).message().find("4097 bytes"), std::string::npos) << ValidateJobSpec(spec, {});
  spec.set_revision("v1.2\x1b[31m");
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.revision");
  EXPECT_NE(ValidateJobSpec(spec, {}).message().find("U+001B"), std::string::npos) << ValidateJobSpec(spec, {});
}

TEST(JobSpec, LimitsNameTheFieldOverThem) {
  JobSpecLimits limits;
  limits.max_run_time_s = 3600;
  v1::JobSpec spec = LinearMeasure();
  spec.mutable_options()->set_inter_op_threads(1000000);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.options.inter_op_threads", limits);
  spec = LinearMeasure();
  spec.mutable_options()->set_min_run_time_s(1e300);
  ExpectError(spec, absl::StatusCode::kInvalidArgument, "spec.options.min_run_time_s", limits);
  spec.mutable_options()->set_min_run_time_s(3600);
  EXPECT_TRUE(ValidateJobSpec(spec, limits).ok());
}

// Each limit of proto/spec_limits.h holds exactly: its value passes, one more is refused.
TEST(JobSpec, EachSpecLimitPassesAtItsValueAndRefusesOneMore) {
  const auto check = [](const std::function<void(v1::JobSpec&, int extra)>& set, const std::string& field) {
    v1::JobSpec at = LinearCompare();
    set(at, 0);
    EXPECT_TRUE(ValidateJobSpec(at, {}).ok()) << field << ": " << ValidateJobSpec(at, {});
    v1::JobSpec over = LinearCompare();
    set(over, 1);
    ExpectError(over, absl::StatusCode::kInvalidArgument, field);
  };
  check([](v1::JobSpec& s, int extra) { s.mutable_compare()->set_rounds(kMaxRounds + extra); }, "spec.compare.rounds");
  check([](v1::JobSpec& s, int extra) { s.mutable_options()->set_intra_op_threads(kMaxThreads + extra); },
        "spec.options.intra_op_threads");
  check([](v1::JobSpec& s, int extra) { s.mutable_options()->set_max_run_time_s(kMaxRunTimeS + extra); },
        "spec.options.max_run_time_s");
  const std::string metadata = "spec.compare.baseline.input_metadata";
  check(
      [](v1::JobSpec& s, int extra) {
        auto& m = *s.mutable_compare()->mutable_baseline()->mutable_input_metadata();
        for (size_t i = 0; i < kMaxInputMetadataEntries + extra; ++i) m["k" + std::to_string(i)] = "v";
      },
      metadata);
  check(
      [](v1::JobSpec& s, int extra) {
        (*s.mutable_compare()->mutable_baseline()->mutable_input_metadata())[std::string(
            kMaxInputMetadataKeyBytes + extra, 'k')] = "v";
      },
      metadata);
  check(
      [](v1::JobSpec& s, int extra) {
        (*s.mutable_compare()->mutable_baseline()->mutable_input_metadata())["k"] =
            std::string(kMaxInputMetadataValueBytes + extra, 'v');
      },
      metadata + ".k");
}

// The GPUs a job needs visible: its highest cuda:N + 1 (for a Slurm node's gres).
TEST(JobSpec, GpusNeededCountsFromTheHighestCudaIndex) {
  v1::JobSpec measure;
  measure.mutable_measure()->mutable_workload()->set_device("cpu");
  EXPECT_EQ(GpusNeeded(measure), 0);
  measure.mutable_measure()->mutable_workload()->set_device("cuda");
  EXPECT_EQ(GpusNeeded(measure), 1);
  v1::JobSpec compare;
  compare.mutable_compare()->mutable_baseline()->set_device("cuda:0");
  compare.mutable_compare()->mutable_candidate()->set_device("cuda:2");
  EXPECT_EQ(GpusNeeded(compare), 3);
  EXPECT_EQ(JobWorkloads(compare).size(), 2u);
  v1::JobSpec calibrate;
  calibrate.mutable_calibrate();
  EXPECT_TRUE(JobWorkloads(calibrate).empty());  // the built-in default
  EXPECT_EQ(GpusNeeded(calibrate), 0);
}

}  // namespace
}  // namespace torchscan::spec
