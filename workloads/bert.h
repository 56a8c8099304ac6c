// A small BERT encoder (the architecture of Hugging Face's BertModel) in the LibTorch C++
// frontend, for the "bert" built-in workload.
//
// Embeddings: word + position + token-type embeddings, summed, LayerNorm, dropout.
// Each encoder layer: multi-head self-attention (query/key/value projections, scores
// Q·K^T/sqrt(head size) + additive mask, softmax, dropout, weighted sum of values), output
// projection + dropout + residual + LayerNorm; feed-forward dense -> GELU (erf form) -> dense +
// dropout + residual + LayerNorm. Pooler: dense + tanh on the first ([CLS]) token.
// Initialisation as BertPreTrainedModel._init_weights: Linear and Embedding weights
// normal(0, initializer_range), Linear biases 0, the padding row (id 0) of the word
// embedding 0, LayerNorm weight 1 and bias 0. Dropout is identity in eval mode.
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "spec/bert_config.h"
#include "workloads/builtin_module.h"

namespace torchscan::workloads {

class BertLayerImpl : public torch::nn::Module {
 public:
  explicit BertLayerImpl(const spec::BertConfig& config);
  // hidden [B, S, H]; additive_mask [B, 1, 1, S] (0 visible, -10000 masked).
  torch::Tensor forward(const torch::Tensor& hidden, const torch::Tensor& additive_mask);

 private:
  int64_t num_heads_, head_size_;
  torch::nn::Linear query_{nullptr}, key_{nullptr}, value_{nullptr}, attention_output_{nullptr};
  torch::nn::Linear intermediate_{nullptr}, output_{nullptr};
  torch::nn::LayerNorm attention_norm_{nullptr}, output_norm_{nullptr};
  torch::nn::Dropout attention_dropout_{nullptr}, dropout_{nullptr};
};
TORCH_MODULE(BertLayer);

class BertEncoderModelImpl : public torch::nn::Module {
 public:
  explicit BertEncoderModelImpl(const spec::BertConfig& config = spec::BertConfig());
  // input_ids [B, S] int64 in [0, vocab_size); attention_mask [B, S] (1 visible, 0 masked;
  // any numeric dtype); token_type_ids [B, S] int64 in [0, type_vocab_size). S must not exceed
  // max_position_embeddings. Returns (last hidden states [B, S, H], pooled output [B, H]).
  std::tuple<torch::Tensor, torch::Tensor> forward(const torch::Tensor& input_ids, const torch::Tensor& attention_mask,
                                                   const torch::Tensor& token_type_ids);

 private:
  spec::BertConfig config_;
  torch::nn::Embedding word_embeddings_{nullptr}, position_embeddings_{nullptr}, token_type_embeddings_{nullptr};
  torch::nn::LayerNorm embedding_norm_{nullptr};
  torch::nn::Dropout embedding_dropout_{nullptr};
  torch::nn::ModuleList layers_{nullptr};
  torch::nn::Linear pooler_{nullptr};
  torch::Tensor position_ids_;  // buffer [max_position_embeddings]
};
TORCH_MODULE(BertEncoderModel);

// The "bert" built-in's factory (builtin_module.h): BertEncoderModel(spec::BertConfig()) in eval
// mode, forward(input_ids, attention_mask, token_type_ids) -> tuple(hidden states, pooled).
// Its table entry (default inputs, the mask and token types filled in) is in
// spec/builtin_models.cc. Can throw what LibTorch throws.
BuiltinModule MakeBert();

}  // namespace torchscan::workloads
