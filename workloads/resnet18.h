// The torchvision ResNet-18 architecture (torchvision.models.resnet18(weights=None)) in the
// LibTorch C++ frontend, for the "resnet18" built-in workload.
//
// Layers: conv1 7x7/2 (3->64) + BN + ReLU, max-pool 3x3/2, four stages of two BasicBlocks
// (64, 128, 256, 512 channels; stages 2-4 start with stride 2 and a 1x1/2 conv + BN
// downsample), adaptive average pool to 1x1, fc 512 -> num_classes. Convolutions have no bias.
// Initialisation as torchvision's: kaiming_normal_(fan_out, relu) for convolutions, BatchNorm
// weight 1 and bias 0, the fc layer LibTorch's Linear default; drawn from the global
// generator, so torch::manual_seed before construction fixes the weights. No download.
#pragma once

#include <cstdint>

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "workloads/builtin_module.h"

namespace torchscan::workloads {

class BasicBlockImpl : public torch::nn::Module {
 public:
  BasicBlockImpl(int64_t in_planes, int64_t planes, int64_t stride);
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1_{nullptr}, conv2_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr}, bn2_{nullptr};
  torch::nn::Sequential downsample_{nullptr};  // null when the shapes already match
};
TORCH_MODULE(BasicBlock);

class ResNet18Impl : public torch::nn::Module {
 public:
  explicit ResNet18Impl(int64_t num_classes = 1000);
  // x: [N, 3, H, W] (H, W >= 32 keeps every stage non-empty); returns logits [N, num_classes].
  torch::Tensor forward(torch::Tensor x);

 private:
  torch::nn::Conv2d conv1_{nullptr};
  torch::nn::BatchNorm2d bn1_{nullptr};
  torch::nn::Sequential layer1_{nullptr}, layer2_{nullptr}, layer3_{nullptr}, layer4_{nullptr};
  torch::nn::Linear fc_{nullptr};
};
TORCH_MODULE(ResNet18);

// The "resnet18" built-in's factory (builtin_module.h): ResNet18(1000) in eval mode,
// forward(images [N, 3, H, W]) -> logits. Its table entry is in spec/builtin_models.cc.
// Can throw what LibTorch throws.
BuiltinModule MakeResNet18();

}  // namespace torchscan::workloads
