// The limits and defaults of the schema's messages (proto/*.proto): what a zero field stands
// for, and what is refused. One home for each number, read by everything that applies or
// states it: the daemon's validation (spec/job_spec.cc, daemon/config.cc), the worker's
// and the experiment's defaults (worker/job_options.cc, core/latency_runner.h,
// experiment/experiment.h, workloads/thread_settings.cc), the client's flags
// (client/job_flags.*, client/input_flags.cc) and the help texts (torchscand --help,
// torchscan-client measure/compare --help), which format the numbers from these constants.
//
// The .proto comments cannot include a header, so they state the values for readers of the
// schema; proto/spec_limits_test.cc reads the .proto files and fails when a number they
// state differs from its constant here (or when a "default N", "at most N", "up to N" or
// "N..M" appears that no constant checks). Change a value here, then the comment it names.
//
// Plain constexpr values: no dependencies, no LibTorch, no gRPC. Beside the schema because
// every layer (report/ included, which depends on proto/ only) reads it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchscan {

// ---------------------------------------------------------------- MeasurementOptions

// Blocks run until this much timed work has passed: torch.utils.benchmark's
// blocked_autorange default. The value of MeasurementOptions.min_run_time_s 0, of
// LatencyOptions and of the client's --min-run-time.
inline constexpr double kDefaultMinRunTimeS = 0.2;
// ...and until at least this many blocks exist (MeasurementOptions.min_blocks 0).
inline constexpr int kDefaultMinBlocks = 10;
// Calls the operator profile observes (MeasurementOptions.profile_calls 0).
inline constexpr int kDefaultProfileCalls = 10;
// Intra-op threads when a job gives 0 and no daemon default fills it (and the daemon's
// default_intra_op_threads when its configuration gives 0): the guide's
// torch.set_num_threads(1). Also the client's --threads default.
inline constexpr int kDefaultIntraOpThreads = 1;
// Inter-op threads likewise (MeasurementOptions.inter_op_threads 0, default_inter_op_threads
// 0). What jobs have always run with and reports record; LibTorch's own default is larger.
inline constexpr int kDefaultInterOpThreads = 1;
// Thread counts above are refused: by the daemon (job options and its configuration's
// defaults), by the client's --threads and by workloads/thread_settings.h's ApplyThreadSettings.
inline constexpr int kMaxThreads = 4096;
// min_run_time_s and max_run_time_s above are refused when a job is submitted: a day. Not
// job_wall_time_s, so that a job longer than the wall time still reaches a worker, which the
// wall time then kills.
inline constexpr double kMaxRunTimeS = 86400;
// The client's --min-run-time is refused above this: an hour (a job file may still ask for
// up to kMaxRunTimeS).
inline constexpr double kMaxMinRunTimeFlagS = 3600;

// ---------------------------------------------------------------- CompareJob

// Timing rounds of a comparison when CompareJob.rounds is 0, and the client's --rounds
// default: baseline and candidate alternate in ABBA rounds, each round timing
// min_run_time_s / rounds of each (core/round_plan.h; fewer rounds when a block is longer than
// that, never fewer than min_blocks). Forty, measured with validity_benchmark on the 2-core
// development VM at the default 0.2 s (20 A/A and 20 +5 % jobs each): drift between rounds,
// not noise within one, is the error term (a round's log-ratio spread was 8.5 % at 0.2 s and
// still 7 % at 1 s), so more and shorter rounds pair it more finely at the same cost. The
// paired claim caught 30 % of +5 % slowdowns at 10 rounds, 80 % at 20 and 100 % at 40.
// Rounds 1 is a single pass of each run (the guide's example).
inline constexpr int kDefaultRounds = 40;
// Rounds above are refused (CompareJob.rounds, --rounds, ExperimentOptions.rounds).
inline constexpr int kMaxRounds = 100;
// CompareJob.smallest_change when 0 (and --smallest-change's default): a claim needs the
// paired interval beyond a 1 % change, what pairing cannot cancel within one build pair
// (core/paired_ratio.h kPairedMinClaimedChange); values above are refused.
inline constexpr double kDefaultSmallestChange = 0.01;
inline constexpr double kMaxSmallestChange = 0.5;
// CompareJob.max_time_s when 0 (and --max-time's default): seconds a comparison may take in its
// worker, from the job's start there to its report: no build pair starts that would end past
// it with the work after timing kept in reserve (core/round_plan.h AfterTimingReserveS). Only
// the planned rounds and the passes every comparison runs can pass it. Values above are refused.
inline constexpr double kDefaultCompareMaxTimeS = 20;
inline constexpr double kMaxCompareMaxTimeS = 3600;
// Build pairs of one comparison at most, whatever the time left (each records its rounds).
inline constexpr int kMaxBuildPairs = 500;
// CompareJob.max_other_cpu_share when 0 (and --max-other-cpu-share's default): a build pair
// timed while other processes used more than this share of the job's CPUs is discarded from
// the decision, and a comparison timed mostly so makes no claim (core/build_pair_decision.h).
// Half: on the 2-core VM a single-threaded job and one other busy CPU share nothing but the
// caches; above half, others preempt the timed calls. Values outside are refused (1: never).
inline constexpr double kDefaultMaxOtherCpuShare = 0.5;
inline constexpr double kMinMaxOtherCpuShare = 0.05;

// ---------------------------------------------------------------- CalibrateJob

// A/A pairs of a calibration when CalibrateJob.pairs is 0, and the client's --pairs default.
inline constexpr int kDefaultCalibrationPairs = 20;
// Pairs above are refused (CalibrateJob.pairs, --pairs).
inline constexpr int kMaxCalibrationPairs = 200;

// ---------------------------------------------------------------- TimingLoad

// A run whose timing saw other processes use more than this share of the job's CPUs
// (Timing.load.other_cpu_share, core/cpu_load.h) gets a "busy_machine" warning.
inline constexpr double kBusyMachineOtherCpuShare = 0.25;

// ---------------------------------------------------------------- text of a job

// A path the worker opens (TorchScriptSpec.path, InputSpec.tensor_file, and their
// source_name): PATH_MAX, the longest path the kernel takes.
inline constexpr size_t kMaxPathBytes = 4096;
// Every string field of a job (spec/printable_text.h): room for any path.
inline constexpr size_t kMaxJobTextBytes = kMaxPathBytes;

// WorkloadSpec.input_metadata (spec/job_spec.h ValidateInputMetadata): at most this many
// entries, keys of 1 to kMaxInputMetadataKeyBytes characters, values of at most
// kMaxInputMetadataValueBytes bytes.
inline constexpr size_t kMaxInputMetadataEntries = 64;
inline constexpr size_t kMaxInputMetadataKeyBytes = 64;
inline constexpr size_t kMaxInputMetadataValueBytes = 1024;

// The client's --input NAME=...: a NAME longer than this is not taken as a name (the whole
// text is then read as the shape, and refused as one).
inline constexpr size_t kMaxInputFlagNameBytes = 64;

// ---------------------------------------------------------------- GeneratedTensor

// NormalDistribution.std when unset (the default distribution is normal(0, 1)).
inline constexpr double kDefaultNormalStd = 1;
// UniformDistribution.high when unset (uniform on [0, 1)).
inline constexpr double kDefaultUniformHigh = 1;

// ---------------------------------------------------------------- RSS child

// Completed calls inside each fresh RSS child: the guide's "100 completed calls".
inline constexpr int kRssChildCalls = 100;
// The RSS child is killed (SIGKILL) past this many seconds.
inline constexpr double kRssChildTimeoutS = 300;

// ---------------------------------------------------------------- instruction counts

// Calls counted in each repeat of the instruction-count pass (passes/instruction_count.h),
// when a job leaves instruction_calls 0; and the most it may ask for.
inline constexpr int kDefaultInstructionCalls = 10;
inline constexpr int kMaxInstructionCalls = 10000;
// Uncounted calls before the first counted loop (lazy binding, first-call caches, JIT
// profiling runs), and counted loops per child (their spread shows a count that does not repeat).
inline constexpr int kInstructionWarmupCalls = 3;
inline constexpr int kInstructionRepeats = 2;
// The child under valgrind is killed (SIGKILL) past this many seconds.
inline constexpr double kInstructionTimeoutS = 900;
// A spread between repeats above this share (0.1 %) adds a "counts_not_repeatable" warning.
inline constexpr double kInstructionSpreadLimit = 0.001;

// ---------------------------------------------------------------- DaemonConfig

// What a zero (or empty) field of torchscand's configuration stands for (daemon/config.h
// ApplyDefaults); the thread defaults are kDefaultIntraOpThreads and kDefaultInterOpThreads.
inline constexpr const char* kDefaultSocketMode = "0660";    // DaemonConfig.socket_mode
inline constexpr const char* kDefaultWorkerUser = "nobody";  // DaemonConfig.worker_user, when torchscand is root
// DaemonConfig.sandbox's values (daemon/job_sandbox.h); kSandboxNamespaces is the default (the
// client's private daemon passes kSandboxOff: its only user is the caller).
inline constexpr const char* kSandboxNamespaces = "namespaces";
inline constexpr const char* kSandboxOff = "off";
inline constexpr int kDefaultMaxQueueLength = 100;  // DaemonLimits.max_queue_length: queued jobs
// DaemonLimits.max_queued_per_user 0 stands for max_queue_length / this (at least 1): a quarter.
inline constexpr int kDefaultQueueShareDivisor = 4;
// DaemonLimits.worker_memory_bytes 0 stands for this share of the machine's RAM less the
// daemon's reserve (daemon/worker_memory.h).
inline constexpr int kDefaultWorkerMemoryPercent = 75;
inline constexpr int64_t kDaemonMemoryReserveBytes = int64_t{512} << 20;
inline constexpr double kDefaultJobWallTimeS = 1800;  // DaemonLimits.job_wall_time_s: a worker is killed past it
// DaemonLimits.max_upload_bytes: a larger serialized JobSpec (uploaded files included) is
// refused. Also what spec/job_spec.h JobSpecLimits assumes when not told.
inline constexpr int64_t kDefaultMaxUploadBytes = int64_t{64} << 20;
inline constexpr int kDefaultWorkerOpenFiles = 1024;  // DaemonLimits.worker_open_files: RLIMIT_NOFILE
inline constexpr int kMinWorkerOpenFiles = 16;        // fewer is refused: too few for a worker
// DaemonConfig.noise_floor_max_age_s: a noise floor older than this (seconds) is stale: 7 days.
inline constexpr double kDefaultNoiseFloorMaxAgeS = 7 * 24 * 3600;

// ---------------------------------------------------------------- History

// HistoryRequest.page_size 0 stands for this many jobs a page; more than the maximum is
// refused (a page is built under the daemon's lock and sent whole).
inline constexpr int kDefaultHistoryPageSize = 100;
inline constexpr int kMaxHistoryPageSize = 1000;

}  // namespace torchscan
