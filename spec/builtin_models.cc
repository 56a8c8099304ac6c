#include "spec/builtin_models.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "spec/bert_config.h"

namespace torchscan::spec {
namespace {

using torchscan::v1::GeneratedTensor;
using torchscan::v1::InputSpec;
using torchscan::v1::ModelSpec;

InputSpec GeneratedInput(const std::string& name, const std::vector<int64_t>& shape) {
  InputSpec input;
  input.set_name(name);
  for (int64_t d : shape) input.mutable_generated()->add_shape(d);
  return input;
}

// Linear(128, 128) on 32x128 samples: the guide's example.
BuiltinModel Linear() {
  BuiltinModel model;
  model.id = ModelSpec::linear;
  model.name = "linear";
  model.default_inputs = {GeneratedInput("x", {32, 128})};
  model.inputs_text = "1 input (x [..., 128])";
  model.work_unit = "samples";
  model.batched_rank = 2;
  model.description["architecture"] = "Linear(128, 128) with bias";
  model.description["weights"] = "LibTorch's Linear default initialisation (as torch.nn.Linear), no download";
  return model;
}

// torchvision's ResNet-18 on four 3x32x32 images (resnet18.h).
BuiltinModel ResNet18() {
  BuiltinModel model;
  model.id = ModelSpec::resnet18;
  model.name = "resnet18";
  model.default_inputs = {GeneratedInput("images", {4, 3, 32, 32})};
  model.inputs_text = "1 input (images [N, 3, H, W])";
  model.work_unit = "images";
  model.batched_rank = 4;
  model.keeps_batch_dim = true;
  model.description["architecture"] = "torchvision ResNet-18 (BasicBlock [2, 2, 2, 2]), 1000 classes";
  model.description["weights"] =
      "initialised locally as torchvision's weights=None: kaiming_normal (fan_out, relu) "
      "convolutions, BatchNorm weight 1 bias 0; no download";
  return model;
}

// A small BERT encoder (bert.h) on four sequences of 8 token ids, all tokens visible.
BuiltinModel Bert() {
  const BertConfig config;
  BuiltinModel model;
  model.id = ModelSpec::bert;
  model.name = "bert";
  InputSpec ids = GeneratedInput("input_ids", {4, 8});
  ids.mutable_generated()->set_dtype(GeneratedTensor::int64);
  ids.mutable_generated()->mutable_integers()->set_high(config.vocab_size);
  model.default_inputs = {ids};
  model.optional_inputs = {{"attention_mask", 1, "constant 1 (all tokens visible)"},
                           {"token_type_ids", 0, "constant 0 (one segment)"}};
  model.inputs_text = "1 to 3 inputs (input_ids [B, S], attention_mask, token_type_ids)";
  model.work_unit = "tokens";
  model.work_unit_count = WorkUnitCount::kElements;
  model.keeps_batch_dim = true;
  model.description["architecture"] =
      "BERT encoder: embeddings (word + position + token type, LayerNorm), self-attention "
      "encoder layers (GELU feed-forward), pooler (dense + tanh on [CLS]); output (hidden states, pooled)";
  model.description["config"] = absl::StrCat(
      "vocab_size=", config.vocab_size, " hidden_size=", config.hidden_size, " num_layers=", config.num_layers,
      " num_heads=", config.num_heads, " intermediate_size=", config.intermediate_size,
      " max_position_embeddings=", config.max_position_embeddings, " type_vocab_size=", config.type_vocab_size,
      " layer_norm_eps=", config.layer_norm_eps);
  model.description["weights"] =
      "initialised locally as BertPreTrainedModel._init_weights (normal std 0.02, zero biases, "
      "LayerNorm 1/0); no download";
  model.description["throughput_note"] =
      "tokens/s counts input tokens processed by the encoder (sequences x tokens per call); "
      "it is not autoregressive generation throughput";
  return model;
}

}  // namespace

const std::vector<BuiltinModel>& BuiltinModels() {
  static const std::vector<BuiltinModel>* const models = new std::vector<BuiltinModel>{Linear(), ResNet18(), Bert()};
  return *models;
}

const BuiltinModel* FindBuiltin(ModelSpec::Builtin id) {
  const std::vector<BuiltinModel>& models = BuiltinModels();
  const auto found = std::find_if(models.begin(), models.end(), [id](const BuiltinModel& m) { return m.id == id; });
  return found == models.end() ? nullptr : &*found;
}

ModelSpec::Builtin DefaultBuiltin() { return ModelSpec::linear; }

std::string BuiltinNameList(absl::string_view separator, absl::string_view last_separator,
                            absl::string_view default_suffix) {
  const std::vector<BuiltinModel>& models = BuiltinModels();
  std::string list;
  for (size_t i = 0; i < models.size(); ++i) {
    if (i > 0) absl::StrAppend(&list, i + 1 == models.size() ? last_separator : separator);
    absl::StrAppend(&list, models[i].name, models[i].id == DefaultBuiltin() ? default_suffix : "");
  }
  return list;
}

double BuiltinWorkUnits(const BuiltinModel& model, const std::vector<int64_t>& first_input_shape) {
  if (model.work_unit_count == WorkUnitCount::kElements) {
    int64_t elements = 1;
    for (int64_t d : first_input_shape) elements *= d;
    return static_cast<double>(elements);
  }
  const bool batched = static_cast<int>(first_input_shape.size()) >= model.batched_rank;
  return batched && !first_input_shape.empty() ? static_cast<double>(first_input_shape[0]) : 1.0;
}

}  // namespace torchscan::spec
