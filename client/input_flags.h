// A workload's inputs and caller metadata as written on the command line, turned into the
// schema's InputSpec and input_metadata. No gRPC, no LibTorch. Every error is
// InvalidArgument starting with the flag ("--input", "--input-file", "--metadata"), quoting
// what was given and showing the accepted form.
//
//   --input [NAME=]SHAPE[:DTYPE][:LOW..HIGH]
//       SHAPE  dimensions joined by 'x' ("64x256", "4x3x224x224", "0x8"), or "scalar" (0-d)
//       DTYPE  float32 (default), int64 or int32
//       LOW..HIGH  integers drawn from [LOW, HIGH) for int64/int32 (required for them);
//              for float32, uniform on [LOW, HIGH) instead of the default normal(0, 1)
//       NAME   recorded in the report (default input<index>), letters, digits and '_'
//     Examples: 64x256, ids=4x8:int64:0..30522, 8x3x32x32:float32:-1..1
//     Values come from a private generator seeded with the input's position (0, 1, ...),
//     so they do not depend on the model (two model files get the same inputs) and the
//     seed is recorded as input metadata.
//   --input-file [NAME=]FILE
//       a tensor saved by Python's torch.save or C++ torch::save, relative to the working
//       directory. Uploaded: its bytes go with the job (it must be a readable regular file
//       here); with --daemon-path its absolute path goes instead, for the daemon's machine to
//       read (client/job_files.h).
//   --metadata KEY=VALUE
//       caller-supplied input metadata (e.g. dataset_revision=v3): runs whose values differ
//       are not comparable. Keys follow spec/job_spec.h ValidateInputMetadata.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "client/job_files.h"
#include "proto/workload.pb.h"

namespace torchscan {

// One --input or --input-file occurrence, in command-line order: {"--input", "64x256"}.
using InputFlag = std::pair<std::string, std::string>;

// The InputSpec of `--input TEXT` at position `index`.
absl::StatusOr<v1::InputSpec> ParseInputFlag(const std::string& text, int index);

// The InputSpec of `--input-file TEXT`: tensor_bytes + source_name, or tensor_file.
absl::StatusOr<v1::InputSpec> ParseInputFileFlag(const std::string& text, FileTransport transport);

// Every --input / --input-file in order, appended to `workload`'s inputs.
absl::Status AddInputFlags(const std::vector<InputFlag>& flags, FileTransport transport, v1::WorkloadSpec* workload);

// Every --metadata KEY=VALUE into `workload`'s input_metadata; a key given twice is an error.
absl::Status AddMetadataFlags(const std::vector<std::string>& flags, v1::WorkloadSpec* workload);

}  // namespace torchscan
