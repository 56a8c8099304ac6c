// The factories of the built-in models (LibTorch), one per entry of BuiltinModels()
// (spec/builtin_models.h), each in its model's own file and registered in builtin_factories.cc.
#pragma once

#include "proto/workload.pb.h"
#include "workloads/builtin_module.h"

namespace torchscan::workloads {

// The factory of built-in `id`; nullptr for builtin_unspecified and for values with no
// factory registered (builtin_factories_test checks that every table entry has one).
BuiltinFactory FindBuiltinFactory(torchscan::v1::ModelSpec::Builtin id);

}  // namespace torchscan::workloads
