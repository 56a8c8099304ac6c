// A job folder's spec: how torchscand (and a calibration's fresh pairs) hand a JobSpec to a
// worker, and how the worker reads it back. One reader for both spellings of a spec:
//
//   spec.binpb  the JobSpec in protobuf's binary encoding, uploaded files' bytes included:
//               what torchscand writes at submission. Binary because a JSON spec carries
//               those bytes in base64: two 13 MB modules made a 35 MB spec.json that took
//               the daemon about 1 s to write (under its records lock) and the worker 1.3 s to
//               parse before its first build (measured with perf on this 2-core VM).
//   spec.json   the JobSpec as JSON (io/proto_json.h): a job file written by hand or by
//               deploy/slurm's batch script, and the job folders of daemons before spec.binpb.
//
// LoadJobSpec reads spec.binpb when the folder has one, else spec.json. No LibTorch, no gRPC.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "proto/service.pb.h"

namespace torchscan::worker {

// Writes `spec` to `job_dir`/spec.binpb atomically (io/file_io.h's WriteFileAtomic, `mode`).
// Errors name the path.
absl::Status SaveJobSpec(const v1::JobSpec& spec, const std::string& job_dir, int mode = 0644);

// Reads `job_dir`'s spec: spec.binpb if it exists, else spec.json (strict JSON). NotFound
// naming both when neither exists; InvalidArgument naming the file when it is not a JobSpec.
// All or nothing: `spec` is left untouched on error.
absl::Status LoadJobSpec(const std::string& job_dir, v1::JobSpec* spec);

// The path of `job_dir`'s spec file as LoadJobSpec would read it (spec.binpb when neither
// exists yet): for copying it whole and for naming it in messages.
std::string JobSpecPath(const std::string& job_dir);

}  // namespace torchscan::worker
