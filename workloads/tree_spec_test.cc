#include "workloads/tree_spec.h"

#include <gtest/gtest.h>

namespace torchscan::workloads {
namespace {

constexpr const char* kLeaf = R"({"type": null, "context": null, "children_spec": []})";

// What torch 2.11's torch.utils._pytree.treespec_dumps writes for a dict output
// {"logits": t, "pair": (t, t)} (the structure of the end-to-end test's package).
TEST(TreeSpec, ReadsADictWithANestedTuple) {
  const std::string json = std::string(R"([1, {"type": "builtins.dict", "context": "[\"logits\", \"pair\"]", )") +
                           R"("children_spec": [)" + kLeaf + R"(, {"type": "builtins.tuple", "context": "null", )" +
                           R"("children_spec": [)" + kLeaf + ", " + kLeaf + "]}]}]";
  absl::StatusOr<TreeSpec> spec = ParseTreeSpec(json);
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kind, TreeSpec::Kind::kDict);
  EXPECT_EQ(spec->keys, (std::vector<std::string>{"logits", "pair"}));
  EXPECT_EQ(spec->children[1].kind, TreeSpec::Kind::kTuple);
  EXPECT_EQ(spec->LeafCount(), 3);
  EXPECT_EQ(spec->Text(), "dict (logits, pair)");
}

TEST(TreeSpec, ASingleTensorIsALeaf) {
  absl::StatusOr<TreeSpec> spec = ParseTreeSpec(std::string("[1, ") + kLeaf + "]");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->kind, TreeSpec::Kind::kLeaf);
  EXPECT_EQ(spec->LeafCount(), 1);
  EXPECT_EQ(spec->Text(), "tensor");
}

TEST(TreeSpec, RefusesWhatItCannotPutBack) {
  EXPECT_FALSE(ParseTreeSpec("not json").ok());
  EXPECT_FALSE(ParseTreeSpec(std::string("[2, ") + kLeaf + "]").ok());
  const std::string int_keys =
      std::string(R"([1, {"type": "builtins.dict", "context": "[1]", "children_spec": [)") + kLeaf + "]}]";
  absl::StatusOr<TreeSpec> spec = ParseTreeSpec(int_keys);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().message(), "the package's output spec has a dict whose keys are not strings");
}

}  // namespace
}  // namespace torchscan::workloads
