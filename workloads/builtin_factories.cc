#include "workloads/builtin_factories.h"

#include <utility>

#include "workloads/bert.h"
#include "workloads/linear.h"
#include "workloads/resnet18.h"

namespace torchscan::workloads {

using torchscan::v1::ModelSpec;

BuiltinFactory FindBuiltinFactory(ModelSpec::Builtin id) {
  static constexpr std::pair<ModelSpec::Builtin, BuiltinFactory> kFactories[] = {
      {ModelSpec::linear, &MakeLinear},
      {ModelSpec::resnet18, &MakeResNet18},
      {ModelSpec::bert, &MakeBert},
  };
  for (const auto& [builtin, factory] : kFactories)
    if (builtin == id) return factory;
  return nullptr;
}

}  // namespace torchscan::workloads
