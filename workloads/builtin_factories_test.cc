#include "workloads/builtin_factories.h"

#include <gtest/gtest.h>

#include "spec/builtin_models.h"
#include "workloads/workload.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::ModelSpec;
using torchscan::v1::WorkloadSpec;

TEST(BuiltinFactories, EveryTableEntryHasOne) {
  for (const spec::BuiltinModel& model : spec::BuiltinModels())
    EXPECT_NE(FindBuiltinFactory(model.id), nullptr) << model.name << " has no factory in builtin_factories.cc";
  EXPECT_EQ(FindBuiltinFactory(ModelSpec::builtin_unspecified), nullptr);
}

// The table's default inputs, filled-in inputs, work unit and description, and the factory's
// model, agree: each built-in builds from an empty spec, and the trial call runs.
TEST(BuiltinFactories, EveryEntryBuildsFromItsDefaultInputs) {
  for (const spec::BuiltinModel& model : spec::BuiltinModels()) {
    SCOPED_TRACE(model.name);
    WorkloadSpec spec;
    spec.mutable_model()->set_builtin(model.id);
    const auto workload = BuildWorkload(spec);
    ASSERT_TRUE(workload.ok()) << workload.status();
    EXPECT_EQ(workload->description.at("model"), model.name);
    EXPECT_EQ(workload->work_unit, model.work_unit);
    EXPECT_GT(workload->work_units, 0);
    EXPECT_EQ(workload->input_metadata.tensors_size(),
              model.required_inputs + static_cast<int>(model.optional_inputs.size()));
    for (const auto& [key, value] : model.description) EXPECT_EQ(workload->description.at(key), value) << key;
    EXPECT_FALSE(workload->resident_tensors.empty());
  }
}

}  // namespace
}  // namespace torchscan::workloads
