#include "workloads/bert.h"

#include <cmath>

#include <torch/nn/init.h>

namespace torchscan::workloads {
namespace {

namespace nn = torch::nn;

nn::LayerNorm Norm(const spec::BertConfig& config) {
  return nn::LayerNorm(nn::LayerNormOptions({config.hidden_size}).eps(config.layer_norm_eps));
}

}  // namespace

BertLayerImpl::BertLayerImpl(const spec::BertConfig& config)
    : num_heads_(config.num_heads), head_size_(config.hidden_size / config.num_heads) {
  const int64_t h = config.hidden_size;
  query_ = register_module("query", nn::Linear(h, h));
  key_ = register_module("key", nn::Linear(h, h));
  value_ = register_module("value", nn::Linear(h, h));
  attention_dropout_ = register_module("attention_dropout", nn::Dropout(config.dropout));
  attention_output_ = register_module("attention_output", nn::Linear(h, h));
  attention_norm_ = register_module("attention_norm", Norm(config));
  intermediate_ = register_module("intermediate", nn::Linear(h, config.intermediate_size));
  output_ = register_module("output", nn::Linear(config.intermediate_size, h));
  output_norm_ = register_module("output_norm", Norm(config));
  dropout_ = register_module("dropout", nn::Dropout(config.dropout));
}

torch::Tensor BertLayerImpl::forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask) {
  const int64_t batch = hidden.size(0), seq = hidden.size(1), width = hidden.size(2);
  auto heads = [&](const torch::Tensor& x) {  // [B, S, H] -> [B, heads, S, head_size]
    return x.view({batch, seq, num_heads_, head_size_}).permute({0, 2, 1, 3});
  };
  const torch::Tensor q = heads(query_->forward(hidden));
  const torch::Tensor k = heads(key_->forward(hidden));
  const torch::Tensor v = heads(value_->forward(hidden));
  torch::Tensor scores = torch::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(head_size_));
  scores = scores + additive_mask;
  const torch::Tensor probs = attention_dropout_->forward(torch::softmax(scores, -1));
  const torch::Tensor context = torch::matmul(probs, v).permute({0, 2, 1, 3}).contiguous().view({batch, seq, width});
  const torch::Tensor attention =
      attention_norm_->forward(dropout_->forward(attention_output_->forward(context)) + hidden);
  const torch::Tensor intermediate = torch::gelu(intermediate_->forward(attention));
  return output_norm_->forward(dropout_->forward(output_->forward(intermediate)) + attention);
}

BertEncoderModelImpl::BertEncoderModelImpl(const spec::BertConfig& config) : config_(config) {
  const int64_t h = config.hidden_size;
  word_embeddings_ =
      register_module("word_embeddings", nn::Embedding(nn::EmbeddingOptions(config.vocab_size, h).padding_idx(0)));
  position_embeddings_ = register_module("position_embeddings", nn::Embedding(config.max_position_embeddings, h));
  token_type_embeddings_ = register_module("token_type_embeddings", nn::Embedding(config.type_vocab_size, h));
  embedding_norm_ = register_module("embedding_norm", Norm(config));
  embedding_dropout_ = register_module("embedding_dropout", nn::Dropout(config.dropout));
  layers_ = register_module("layers", nn::ModuleList());
  for (int64_t i = 0; i < config.num_layers; ++i) layers_->push_back(BertLayer(config));
  pooler_ = register_module("pooler", nn::Linear(h, h));
  position_ids_ = register_buffer("position_ids", torch::arange(config.max_position_embeddings, torch::kLong));

  // BertPreTrainedModel._init_weights, in module order.
  torch::NoGradGuard no_grad;
  for (auto& module : modules(/*include_self=*/false)) {
    if (auto* linear = module->as<nn::Linear>()) {
      linear->weight.normal_(0.0, config.initializer_range);
      linear->bias.zero_();
    } else if (auto* embedding = module->as<nn::Embedding>()) {
      embedding->weight.normal_(0.0, config.initializer_range);
      if (embedding->options.padding_idx()) embedding->weight[*embedding->options.padding_idx()].zero_();
    } else if (auto* norm = module->as<nn::LayerNorm>()) {
      norm->weight.fill_(1.0);
      norm->bias.zero_();
    }
  }
}

std::tuple<torch::Tensor, torch::Tensor> BertEncoderModelImpl::forward(const torch::Tensor& input_ids,
                                                                       const torch::Tensor& attention_mask,
                                                                       const torch::Tensor& token_type_ids) {
  TORCH_CHECK(input_ids.dim() == 2, "bert: input_ids must be [batch, sequence], got ", input_ids.sizes());
  TORCH_CHECK(attention_mask.sizes() == input_ids.sizes() && token_type_ids.sizes() == input_ids.sizes(),
              "bert: attention_mask ", attention_mask.sizes(), " and token_type_ids ", token_type_ids.sizes(),
              " must have the shape of input_ids ", input_ids.sizes());
  const int64_t seq = input_ids.size(1);
  TORCH_CHECK(seq <= config_.max_position_embeddings, "bert: sequences of ", seq,
              " tokens exceed max_position_embeddings ", config_.max_position_embeddings);
  const torch::Tensor positions = position_ids_.slice(0, 0, seq).unsqueeze(0);
  torch::Tensor hidden = word_embeddings_->forward(input_ids) + position_embeddings_->forward(positions) +
                         token_type_embeddings_->forward(token_type_ids);
  hidden = embedding_dropout_->forward(embedding_norm_->forward(hidden));
  // [B, S] -> [B, 1, 1, S]: 0 where visible, -10000 where masked (finite in every precision).
  const torch::Tensor additive_mask =
      (1.0 - attention_mask.to(hidden.scalar_type()).unsqueeze(1).unsqueeze(2)) * -10000.0;
  for (const auto& layer : *layers_) hidden = layer->as<BertLayer>()->forward(hidden, additive_mask);
  const torch::Tensor pooled = torch::tanh(pooler_->forward(hidden.select(1, 0)));
  return {hidden, pooled};
}

BuiltinModule MakeBert() {
  BertEncoderModel bert(spec::BertConfig{});
  bert->eval();
  BuiltinModule module;
  module.tensors = ModuleTensors(*bert);
  module.forward = [bert](const std::vector<at::Tensor>& in) mutable {
    auto [hidden, pooled] = bert->forward(in[0], in[1], in[2]);
    return c10::IValue(c10::ivalue::Tuple::create({hidden, pooled}));
  };
  return module;
}

}  // namespace torchscan::workloads
