#include "spec/builtin_models.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

namespace torchscan::spec {
namespace {

using torchscan::v1::ModelSpec;

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const BuiltinModel& model : BuiltinModels()) names.push_back(model.name);
  return names;
}

// The proto enum is the wire format: a value added there without a table entry would be
// accepted by no one, and refused with a list of names that leaves it out.
TEST(BuiltinModels, EveryEnumValueButTheUnsetOneHasAnEntryUnderItsName) {
  const google::protobuf::EnumDescriptor* values = ModelSpec::Builtin_descriptor();
  int listed = 0;
  for (int i = 0; i < values->value_count(); ++i) {
    const google::protobuf::EnumValueDescriptor* value = values->value(i);
    if (value->number() == ModelSpec::builtin_unspecified) continue;
    ++listed;
    const BuiltinModel* model = FindBuiltin(static_cast<ModelSpec::Builtin>(value->number()));
    ASSERT_NE(model, nullptr) << "ModelSpec." << value->name() << " has no entry in BuiltinModels()";
    EXPECT_EQ(model->name, value->name());
  }
  EXPECT_EQ(BuiltinModels().size(), static_cast<size_t>(listed));
}

TEST(BuiltinModels, EveryEntryIsOneEnumValueInTheEnumsOrder) {
  std::set<int> seen;
  int previous = ModelSpec::builtin_unspecified;
  for (const BuiltinModel& model : BuiltinModels()) {
    SCOPED_TRACE(model.name);
    EXPECT_TRUE(ModelSpec::Builtin_IsValid(model.id));
    EXPECT_NE(model.id, ModelSpec::builtin_unspecified);
    EXPECT_EQ(ModelSpec::Builtin_Name(model.id), model.name);
    EXPECT_TRUE(seen.insert(model.id).second) << "listed twice";
    EXPECT_GT(model.id, previous);
    previous = model.id;
  }
}

TEST(BuiltinModels, EveryEntrySaysWhatItTakesCountsAndIs) {
  for (const BuiltinModel& model : BuiltinModels()) {
    SCOPED_TRACE(model.name);
    EXPECT_GE(model.required_inputs, 1);  // the optional inputs are shaped like input 0
    ASSERT_FALSE(model.default_inputs.empty());
    EXPECT_GE(model.default_inputs.size(), static_cast<size_t>(model.required_inputs));
    EXPECT_LE(model.default_inputs.size(), model.required_inputs + model.optional_inputs.size());
    for (const auto& input : model.default_inputs) {
      EXPECT_FALSE(input.name().empty());
      EXPECT_TRUE(input.has_generated()) << input.name();
    }
    for (const ConstantInput& input : model.optional_inputs) {
      EXPECT_FALSE(input.name.empty());
      EXPECT_FALSE(input.source.empty()) << input.name;
    }
    EXPECT_FALSE(model.inputs_text.empty());
    EXPECT_FALSE(model.work_unit.empty());
    if (model.work_unit_count == WorkUnitCount::kLeadingDim) {
      EXPECT_GE(model.batched_rank, 1);
    }
    EXPECT_EQ(model.description.count("architecture"), 1u);
    EXPECT_EQ(model.description.count("weights"), 1u);
  }
}

TEST(BuiltinModels, UnsetAndUnknownValuesHaveNoEntry) {
  EXPECT_EQ(FindBuiltin(ModelSpec::builtin_unspecified), nullptr);
  EXPECT_EQ(FindBuiltin(static_cast<ModelSpec::Builtin>(99)), nullptr);
}

TEST(BuiltinModels, TheDefaultIsTheGuidesLinearModel) {
  ASSERT_NE(FindBuiltin(DefaultBuiltin()), nullptr);
  EXPECT_EQ(FindBuiltin(DefaultBuiltin())->name, "linear");
}

TEST(BuiltinNameList, JoinsTheNamesInTableOrder) {
  const std::vector<std::string> names = Names();
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(BuiltinNameList(", ", ", "), ", ")), names);

  std::vector<std::string> marked = names;
  for (size_t i = 0; i < names.size(); ++i)
    if (BuiltinModels()[i].id == DefaultBuiltin()) marked[i] += " (default)";
  EXPECT_EQ(std::vector<std::string>(absl::StrSplit(BuiltinNameList(" | ", " | ", " (default)"), " | ")), marked);

  // The last two by the last separator: "a, b or c".
  const std::string choose = BuiltinNameList(", ", " or ");
  ASSERT_GE(names.size(), 2u);
  EXPECT_TRUE(absl::EndsWith(choose, names[names.size() - 2] + " or " + names.back())) << choose;
  EXPECT_EQ(std::count(choose.begin(), choose.end(), ','), static_cast<long>(names.size() - 2)) << choose;
}

TEST(BuiltinWorkUnits, LeadingDimOfABatchElseOneItem) {
  BuiltinModel model;
  model.work_unit_count = WorkUnitCount::kLeadingDim;
  model.batched_rank = 4;
  EXPECT_EQ(BuiltinWorkUnits(model, {6, 3, 32, 32}), 6);
  EXPECT_EQ(BuiltinWorkUnits(model, {3, 32, 32}), 1);  // one unbatched image
  model.batched_rank = 2;
  EXPECT_EQ(BuiltinWorkUnits(model, {7, 128}), 7);
  EXPECT_EQ(BuiltinWorkUnits(model, {128}), 1);
}

TEST(BuiltinWorkUnits, ElementsCountsEveryElement) {
  BuiltinModel model;
  model.work_unit_count = WorkUnitCount::kElements;
  EXPECT_EQ(BuiltinWorkUnits(model, {4, 8}), 32);
  EXPECT_EQ(BuiltinWorkUnits(model, {5}), 5);
  EXPECT_EQ(BuiltinWorkUnits(model, {}), 1);  // a 0-d tensor: one element
}

}  // namespace
}  // namespace torchscan::spec
