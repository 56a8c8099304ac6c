#include "core/workloads/inputs.h"

#include <filesystem>
#include <limits>
#include <optional>
#include <system_error>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/serialize.h>
#include <torch/types.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/workloads/fingerprint.h"
#include "core/workloads/torch_status.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::GeneratedTensor;

std::string ShapeText(const google::protobuf::RepeatedField<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

absl::Status OverBudget(absl::string_view field, absl::string_view what, int64_t bytes, int64_t remaining) {
  return absl::ResourceExhaustedError(absl::StrCat(
      field, ": ", what, " needs ", bytes, " bytes, over the ", remaining,
      " bytes left of the workload's input memory limit (WorkloadLimits.max_input_bytes, all inputs "
      "together); use a smaller shape or raise the limit"));
}

std::string Number(double v) { return absl::StrCat(v); }

absl::StatusOr<PreparedInput> Generate(const GeneratedTensor& g, const std::string& field,
                                       int64_t* remaining_bytes) {
  // Size first: nothing is allocated for a shape over the budget.
  std::vector<int64_t> shape(g.shape().begin(), g.shape().end());
  const int64_t element_size = g.dtype() == GeneratedTensor::int64 ? 8 : 4;
  int64_t bytes = element_size;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".generated.shape[", i, "] is ", shape[i],
                                                     "; dimensions must be >= 0"));
    }
    if (shape[i] != 0 && bytes > std::numeric_limits<int64_t>::max() / shape[i]) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".generated.shape ", ShapeText(g.shape()),
                                                     " has more elements than int64 can count"));
    }
    bytes *= shape[i];
  }
  if (bytes > *remaining_bytes) {
    return OverBudget(field + ".generated.shape",
                      absl::StrCat(ShapeText(g.shape()), " ", GeneratedTensor::DType_Name(g.dtype())),
                      bytes, *remaining_bytes);
  }

  const bool integer_dtype = g.dtype() != GeneratedTensor::float32;
  std::string distribution;
  double mean = 0, std_dev = 1, low = 0, high = 1;
  int64_t int_low = 0, int_high = 0;
  switch (g.distribution_case()) {
    case GeneratedTensor::kNormal:
    case GeneratedTensor::DISTRIBUTION_NOT_SET:
      mean = g.normal().mean();
      std_dev = g.normal().has_std() ? g.normal().std() : 1.0;
      if (!(std_dev > 0)) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".generated.normal.std is ", std_dev, "; it must be > 0"));
      }
      distribution = absl::StrCat("normal(mean=", Number(mean), ", std=", Number(std_dev), ")");
      break;
    case GeneratedTensor::kUniform:
      low = g.uniform().low();
      high = g.uniform().has_high() ? g.uniform().high() : 1.0;
      if (!(high > low)) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".generated.uniform: high (", high, ") must be > low (", low, ")"));
      }
      distribution = absl::StrCat("uniform[", Number(low), ", ", Number(high), ")");
      break;
    case GeneratedTensor::kIntegers:
      int_low = g.integers().low();
      int_high = g.integers().high();
      if (int_high <= int_low) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".generated.integers: high (", int_high,
                                                       ") must be > low (", int_low, "); the range is [low, high)"));
      }
      distribution = absl::StrCat("integers in [", int_low, ", ", int_high, ")");
      break;
  }
  if (integer_dtype && g.distribution_case() != GeneratedTensor::kIntegers) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".generated: dtype ", GeneratedTensor::DType_Name(g.dtype()),
                                                   " needs the integers distribution (set generated.integers)"));
  }

  PreparedInput input;
  absl::Status status = RunTorch(field + ".generated", [&] {
    c10::optional<at::Generator> generator;
    if (g.has_seed()) generator = at::detail::createCPUGenerator(static_cast<uint64_t>(g.seed()));
    const auto dtype = g.dtype() == GeneratedTensor::int64   ? torch::kInt64
                       : g.dtype() == GeneratedTensor::int32 ? torch::kInt32
                                                             : torch::kFloat32;
    if (g.distribution_case() == GeneratedTensor::kIntegers) {
      input.tensor = generator ? torch::randint(int_low, int_high, shape, *generator, torch::dtype(dtype))
                               : torch::randint(int_low, int_high, shape, torch::dtype(dtype));
    } else if (g.distribution_case() == GeneratedTensor::kUniform) {
      input.tensor = torch::empty(shape, torch::dtype(dtype)).uniform_(low, high, generator);
    } else {
      // normal_(0, 1) draws exactly what torch::randn draws.
      input.tensor = torch::empty(shape, torch::dtype(dtype)).normal_(mean, std_dev, generator);
    }
  });
  if (!status.ok()) return status;
  *remaining_bytes -= bytes;
  input.fields["source"] = "generated";
  input.fields["distribution"] = distribution;
  input.fields["seed"] = g.has_seed() ? absl::StrCat(g.seed(), " (private generator)")
                                      : "global generator after model construction";
  return input;
}

absl::StatusOr<PreparedInput> Load(const std::string& path, const std::string& field, int64_t* remaining_bytes) {
  const std::string file_field = field + ".tensor_file";
  absl::StatusOr<std::string> fingerprint = FingerprintFile(path, file_field);
  if (!fingerprint.ok()) return fingerprint.status();
  std::error_code error;
  const auto file_bytes = std::filesystem::file_size(path, error);
  if (!error && static_cast<int64_t>(file_bytes) > *remaining_bytes) {
    return OverBudget(file_field, absl::StrCat("'", path, "' (file size)"), static_cast<int64_t>(file_bytes),
                      *remaining_bytes);
  }
  PreparedInput input;
  absl::Status status = RunTorch(absl::StrCat(file_field, ": '", path, "' is not a tensor saved with torch::save"),
                                 [&] { torch::load(input.tensor, path); });
  if (!status.ok()) return status;
  const int64_t bytes = static_cast<int64_t>(input.tensor.numel() * input.tensor.element_size());
  if (bytes > *remaining_bytes) {
    return OverBudget(file_field, absl::StrCat("the tensor in '", path, "'"), bytes, *remaining_bytes);
  }
  *remaining_bytes -= bytes;
  input.tensor = input.tensor.cpu();
  input.fields["source"] = absl::StrCat("file ", path);
  input.fields["fingerprint"] = *fingerprint;
  return input;
}

}  // namespace

absl::StatusOr<PreparedInput> MakeInput(const torchscan::v1::InputSpec& spec, int index, int64_t* remaining_bytes) {
  const std::string field = absl::StrCat("inputs[", index, "]");
  absl::StatusOr<PreparedInput> input;
  switch (spec.source_case()) {
    case torchscan::v1::InputSpec::kGenerated:
      input = Generate(spec.generated(), field, remaining_bytes);
      break;
    case torchscan::v1::InputSpec::kTensorFile:
      input = Load(spec.tensor_file(), field, remaining_bytes);
      break;
    case torchscan::v1::InputSpec::SOURCE_NOT_SET:
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": no source; set generated (shape, dtype, distribution) or tensor_file"));
  }
  if (!input.ok()) return input.status();
  input->name = spec.name().empty() ? absl::StrCat("input", index) : spec.name();
  return input;
}

}  // namespace torchscan::workloads
