// The configuration of the "bert" built-in (bert.h), without LibTorch: the built-in table
// (builtin_models.h) reads it for bert's default token ids and its description, the model
// (bert.h) for its layers, so both always describe the same encoder. Plain data; no failure
// cases.
#pragma once

#include <cstdint>

namespace torchscan::spec {

// The small configuration of the built-in workload (each field's default is the one used).
struct BertConfig {
  int64_t vocab_size = 1000;  // token ids in [0, 1000)
  int64_t hidden_size = 128;
  int64_t num_layers = 2;
  int64_t num_heads = 2;  // head size 64
  int64_t intermediate_size = 512;
  int64_t max_position_embeddings = 64;  // sequences up to 64 tokens
  int64_t type_vocab_size = 2;
  double layer_norm_eps = 1e-12;
  double dropout = 0.1;  // identity in eval mode
  double initializer_range = 0.02;
};

}  // namespace torchscan::spec
