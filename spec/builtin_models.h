// The built-in models, one entry each: everything TorchScan knows about a built-in except how
// to construct it. LibTorch-free, so that the daemon and the client (which never load
// LibTorch) name, list and validate the built-ins from the same table the worker builds them
// from. The constructions (factories) are registered in builtin_factories.h (LibTorch).
//
// Adding a built-in touches: its value in ModelSpec.Builtin (proto/workload.proto, the wire
// format), its entry in BuiltinModels() (builtin_models.cc), its factory in a file of its own
// registered in builtin_factories.cc, their BUILD targets, and tests. builtin_models_test
// fails when an enum value has no entry or the names disagree; builtin_factories_test when
// an entry has no factory or its default inputs do not fit the model.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "proto/workload.pb.h"

namespace torchscan::spec {

// An input a built-in fills in when the spec leaves it out: an int64 tensor shaped like
// input 0, every element `value` (bert's attention mask and token types).
struct ConstantInput {
  std::string name;  // recorded in the input metadata
  int64_t value = 0;
  std::string source;  // its input metadata "source", e.g. "constant 1 (all tokens visible)"
};

// How one call's work units are counted from input 0's shape.
enum class WorkUnitCount {
  kLeadingDim,  // dim 0 when input 0 has at least `batched_rank` dims, else 1 (one unbatched item)
  kElements,    // every element (e.g. the tokens of [B, S] token ids)
};

struct BuiltinModel {
  torchscan::v1::ModelSpec::Builtin id = torchscan::v1::ModelSpec::builtin_unspecified;
  // ModelSpec::Builtin_Name(id): what users type (--model, job files) and reports show.
  std::string name;
  // The inputs when the spec gives none, all generated.
  std::vector<torchscan::v1::InputSpec> default_inputs;
  // How many inputs the spec must give (when it gives any), and those that may follow,
  // filled in when left out: a spec gives required_inputs to required_inputs +
  // optional_inputs.size() inputs.
  int required_inputs = 1;
  std::vector<ConstantInput> optional_inputs;
  // The inputs it takes, for errors: "1 input (x [..., 128])".
  std::string inputs_text;
  std::string work_unit;  // what a work unit is: "samples", "images", "tokens"
  WorkUnitCount work_unit_count = WorkUnitCount::kLeadingDim;
  int batched_rank = 0;  // kLeadingDim: input 0's rank when it holds a batch
  // per_sample always narrows dim 0 to 1 instead of selecting it (the layers need a batch
  // dimension), whatever WorkloadSpec.keep_batch_dim says.
  bool keeps_batch_dim = false;
  // What the report's workload description records about the model itself: "architecture"
  // and "weights", and any of its own (bert: "config", "throughput_note").
  std::map<std::string, std::string> description;
};

// Every built-in, in the order of the enum. Built once, on first use; never empty.
const std::vector<BuiltinModel>& BuiltinModels();

// The entry of `id`; nullptr for builtin_unspecified and for values without an entry (an
// unknown number from the wire), which callers refuse naming the field.
const BuiltinModel* FindBuiltin(torchscan::v1::ModelSpec::Builtin id);

// The model a job runs when it names none (the guide's example): linear.
torchscan::v1::ModelSpec::Builtin DefaultBuiltin();

// The built-ins' names in table order, for errors and --help: joined by `separator`, the
// last two by `last_separator`, the default's followed by `default_suffix`.
// (", ", " or ") -> "linear, resnet18 or bert"; (" | ", " | ", " (default)") ->
// "linear (default) | resnet18 | bert".
std::string BuiltinNameList(absl::string_view separator, absl::string_view last_separator,
                            absl::string_view default_suffix = "");

// One call's work units for input 0 of shape `first_input_shape` (as the model receives it,
// the whole batch): linear [32, 128] -> 32, linear [128] -> 1, bert [4, 8] -> 32.
double BuiltinWorkUnits(const BuiltinModel& model, const std::vector<int64_t>& first_input_shape);

}  // namespace torchscan::spec
