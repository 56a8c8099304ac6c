#include "workloads/inputs.h"

#include <limits>
#include <optional>
#include <sstream>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <torch/serialize.h>
#include <torch/types.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "proto/spec_limits.h"
#include "workloads/fingerprint.h"
#include "workloads/torch_status.h"
#include "workloads/workload_file.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::GeneratedTensor;

std::string ShapeText(const google::protobuf::RepeatedField<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

absl::Status OverBudget(absl::string_view field, absl::string_view what, int64_t bytes, int64_t remaining) {
  return absl::ResourceExhaustedError(
      absl::StrCat(field, ": ", what, " needs ", bytes, " bytes, over the ", remaining,
                   " bytes left of the workload's input memory limit (WorkloadOptions.max_input_bytes, all inputs "
                   "together); use a smaller shape or raise the limit"));
}

std::string Number(double v) { return absl::StrCat(v); }

// The bytes a tensor of `g`'s shape and dtype needs, checked against `remaining_bytes` before
// anything is allocated; an error for a negative dimension, an element count over int64, or a
// size over the budget.
absl::StatusOr<int64_t> GeneratedBytes(const GeneratedTensor& g, const std::string& field, int64_t remaining_bytes) {
  const int64_t element_size = g.dtype() == GeneratedTensor::int64 ? 8 : 4;
  int64_t bytes = element_size;
  for (int i = 0; i < g.shape_size(); ++i) {
    const int64_t dim = g.shape(i);
    if (dim < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".generated.shape[", i, "] is ", dim, "; dimensions must be >= 0"));
    }
    if (dim != 0 && bytes > std::numeric_limits<int64_t>::max() / dim) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".generated.shape ", ShapeText(g.shape()), " has more elements than int64 can count"));
    }
    bytes *= dim;
  }
  if (bytes > remaining_bytes) {
    return OverBudget(field + ".generated.shape",
                      absl::StrCat(ShapeText(g.shape()), " ", GeneratedTensor::DType_Name(g.dtype())), bytes,
                      remaining_bytes);
  }
  return bytes;
}

// The distribution `g` draws from, its parameters (defaults filled in) and its description.
struct Distribution {
  std::string text;
  double mean = 0, std_dev = 1, low = 0, high = 1;
  int64_t int_low = 0, int_high = 0;
};

// An error for std <= 0, high <= low, or an integer dtype without the integers distribution.
absl::StatusOr<Distribution> CheckedDistribution(const GeneratedTensor& g, const std::string& field) {
  Distribution d;
  switch (g.distribution_case()) {
    case GeneratedTensor::kNormal:
    case GeneratedTensor::DISTRIBUTION_NOT_SET:
      d.mean = g.normal().mean();
      d.std_dev = g.normal().has_std() ? g.normal().std() : kDefaultNormalStd;
      if (!(d.std_dev > 0)) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".generated.normal.std is ", d.std_dev, "; it must be > 0"));
      }
      d.text = absl::StrCat("normal(mean=", Number(d.mean), ", std=", Number(d.std_dev), ")");
      break;
    case GeneratedTensor::kUniform:
      d.low = g.uniform().low();
      d.high = g.uniform().has_high() ? g.uniform().high() : kDefaultUniformHigh;
      if (!(d.high > d.low)) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".generated.uniform: high (", d.high, ") must be > low (", d.low, ")"));
      }
      d.text = absl::StrCat("uniform[", Number(d.low), ", ", Number(d.high), ")");
      break;
    case GeneratedTensor::kIntegers:
      d.int_low = g.integers().low();
      d.int_high = g.integers().high();
      if (d.int_high <= d.int_low) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".generated.integers: high (", d.int_high,
                                                       ") must be > low (", d.int_low, "); the range is [low, high)"));
      }
      d.text = absl::StrCat("integers in [", d.int_low, ", ", d.int_high, ")");
      break;
  }
  const bool integer_dtype = g.dtype() != GeneratedTensor::float32;
  if (integer_dtype && g.distribution_case() != GeneratedTensor::kIntegers) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".generated: dtype ", GeneratedTensor::DType_Name(g.dtype()),
                                                   " needs the integers distribution (set generated.integers)"));
  }
  return d;
}

// Draws the tensor of `g` from `d`: from a private generator when `g` has a seed, else from the global one.
absl::Status Draw(const GeneratedTensor& g, const Distribution& d, const std::string& field, at::Tensor* tensor) {
  return RunTorch(field + ".generated", [&] {
    const std::vector<int64_t> shape(g.shape().begin(), g.shape().end());
    c10::optional<at::Generator> generator;
    if (g.has_seed()) generator = at::detail::createCPUGenerator(static_cast<uint64_t>(g.seed()));
    const auto dtype = g.dtype() == GeneratedTensor::int64   ? torch::kInt64
                       : g.dtype() == GeneratedTensor::int32 ? torch::kInt32
                                                             : torch::kFloat32;
    if (g.distribution_case() == GeneratedTensor::kIntegers) {
      *tensor = generator ? torch::randint(d.int_low, d.int_high, shape, *generator, torch::dtype(dtype))
                          : torch::randint(d.int_low, d.int_high, shape, torch::dtype(dtype));
    } else if (g.distribution_case() == GeneratedTensor::kUniform) {
      *tensor = torch::empty(shape, torch::dtype(dtype)).uniform_(d.low, d.high, generator);
    } else {
      // normal_(0, 1) draws exactly what torch::randn draws.
      *tensor = torch::empty(shape, torch::dtype(dtype)).normal_(d.mean, d.std_dev, generator);
    }
  });
}

absl::StatusOr<PreparedInput> Generate(const GeneratedTensor& g, const std::string& field, int64_t* remaining_bytes) {
  // Size first: nothing is allocated for a shape over the budget.
  absl::StatusOr<int64_t> bytes = GeneratedBytes(g, field, *remaining_bytes);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<Distribution> distribution = CheckedDistribution(g, field);
  if (!distribution.ok()) return distribution.status();
  PreparedInput input;
  if (absl::Status status = Draw(g, *distribution, field, &input.tensor); !status.ok()) return status;
  *remaining_bytes -= *bytes;
  input.fields["source"] = "generated";
  input.fields["distribution"] = distribution->text;
  input.fields["seed"] =
      g.has_seed() ? absl::StrCat(g.seed(), " (private generator)") : "global generator after model construction";
  return input;
}

constexpr const char* kTensorFileFormats =
    "LibTorch reads one tensor saved by Python's torch.save in its zip format (the default since PyTorch 1.6) "
    "or by C++ torch::save";

// One tensor from the bytes of a Python torch.save zip archive (torch::pickle_load) or a C++
// torch::save archive (torch::load); an error naming `where` (the field and the file) and the
// formats that work otherwise.
absl::StatusOr<at::Tensor> ReadTensorFile(absl::string_view file, const std::string& where) {
  std::vector<char> bytes(file.begin(), file.end());
  if (bytes.size() < 4 || std::string(bytes.data(), 4) != std::string("PK\x03\x04", 4)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, " is not a zip archive (e.g. torch.save's legacy format, _use_new_zipfile_serialization=False); ",
        kTensorFileFormats, ": re-save it with torch.save(tensor, path)"));
  }
  c10::IValue value;
  const absl::Status pickled = RunTorch("as torch.save's format", [&] { value = torch::pickle_load(bytes); });
  if (pickled.ok() && !value.isTensor()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " holds a ", value.tagKind(),
                                                   ", not one tensor; save one tensor per file (one file per model "
                                                   "argument, in order)"));
  }
  if (!pickled.ok()) {  // not Python's format: C++ torch::save?
    at::Tensor tensor;
    const absl::Status loaded = RunTorch(where, [&] {
      std::istringstream stream(std::string(bytes.begin(), bytes.end()));
      torch::load(tensor, stream);
    });
    if (!loaded.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, " holds no tensor LibTorch can read (", pickled.message(),
                       "); a dict (a state_dict), a module or another object is not an input: save one tensor per "
                       "file with torch.save(tensor, path); ",
                       kTensorFileFormats));
    }
    return tensor;
  }
  return value.toTensor();
}

// dtype, shape and the bytes of the values: the same tensor saved twice, in either format or
// under another file name, has the same fingerprint.
std::string TensorFingerprint(const at::Tensor& tensor) {
  const at::Tensor values = tensor.contiguous();
  const std::string header =
      absl::StrCat(c10::toString(values.scalar_type()), " [", absl::StrJoin(values.sizes(), ","), "]");
  return Fingerprint({header, absl::string_view(static_cast<const char*>(values.data_ptr()), values.nbytes())});
}

// A tensor file: uploaded bytes (tensor_bytes) or a path the worker reads (tensor_file).
absl::StatusOr<PreparedInput> Load(const torchscan::v1::InputSpec& spec, const std::string& field,
                                   int64_t* remaining_bytes) {
  const bool uploaded = spec.source_case() == torchscan::v1::InputSpec::kTensorBytes;
  const std::string file_field = field + (uploaded ? ".tensor_bytes" : ".tensor_file");
  const std::string name = uploaded ? spec.source_name() : spec.tensor_file();
  const std::string quoted = name.empty() ? "the uploaded bytes" : absl::StrCat("'", name, "'");
  // Its size within budget before it is read: a regular file (not /dev/zero, a FIFO or a
  // folder) the worker can open, or the bytes that came with the job.
  absl::StatusOr<int64_t> file_bytes = static_cast<int64_t>(spec.tensor_bytes().size());
  if (!uploaded) file_bytes = WorkerFileSize(name, file_field);
  if (!file_bytes.ok()) return file_bytes.status();
  if (*file_bytes > *remaining_bytes) {
    return OverBudget(file_field, absl::StrCat(quoted, " (file size)"), *file_bytes, *remaining_bytes);
  }
  std::string read;
  if (!uploaded) {
    absl::StatusOr<std::string> contents = ReadWorkerFile(name, file_field);
    if (!contents.ok()) return contents.status();
    read = *std::move(contents);
  }
  const absl::string_view file = uploaded ? absl::string_view(spec.tensor_bytes()) : absl::string_view(read);
  absl::StatusOr<at::Tensor> tensor = ReadTensorFile(file, absl::StrCat(file_field, ": ", quoted));
  if (!tensor.ok()) return tensor.status();
  PreparedInput input;
  input.tensor = *std::move(tensor);
  const int64_t bytes = static_cast<int64_t>(input.tensor.numel() * input.tensor.element_size());
  if (bytes > *remaining_bytes) {
    return OverBudget(file_field, absl::StrCat("the tensor in ", quoted), bytes, *remaining_bytes);
  }
  *remaining_bytes -= bytes;
  input.tensor = input.tensor.cpu();
  input.fields["source"] = "tensor file";
  input.fields["fingerprint"] = absl::StrCat(TensorFingerprint(input.tensor), " (dtype, shape and values)");
  input.file = RecordFile(file, name, uploaded);
  return input;
}

}  // namespace

absl::StatusOr<PreparedInput> MakeInput(const torchscan::v1::InputSpec& spec, int index, int64_t* remaining_bytes) {
  const std::string field = absl::StrCat("inputs[", index, "]");
  absl::StatusOr<PreparedInput> input;
  switch (spec.source_case()) {
    case torchscan::v1::InputSpec::kGenerated: input = Generate(spec.generated(), field, remaining_bytes); break;
    case torchscan::v1::InputSpec::kTensorFile:
    case torchscan::v1::InputSpec::kTensorBytes: input = Load(spec, field, remaining_bytes); break;
    case torchscan::v1::InputSpec::SOURCE_NOT_SET:
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": no source; set generated (shape, dtype, distribution), tensor_file or tensor_bytes"));
  }
  if (!input.ok()) return input.status();
  input->name = spec.name().empty() ? absl::StrCat("input", index) : spec.name();
  return input;
}

}  // namespace torchscan::workloads
