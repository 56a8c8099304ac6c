#include "experiment/script_check.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "core/output_check.h"
#include "workloads/sha256.h"

namespace torchscan::experiment {
namespace {

// A check module made here with torch::jit::Module::define, saved to bytes.
v1::TorchScriptSpec CheckModule(const std::string& source, const std::string& method = "") {
  torch::jit::Module m("check");
  m.define(source + "\n");
  std::ostringstream bytes;
  m.save(bytes);
  v1::TorchScriptSpec spec;
  spec.set_module_bytes(bytes.str());
  spec.set_method(method);
  return spec;
}

v1::OutputCheck Outcome(const ScriptCheck& check, const torch::Tensor& a, const torch::Tensor& b) {
  return RunOutputCheck([&] { return check(a, b); });
}

TEST(ScriptCheck, NoneOrTruePassesFalseFails) {
  auto close = ScriptCheck::Load(CheckModule(R"(
def forward(self, a: Tensor, b: Tensor) -> bool:
    return bool(torch.allclose(a, b)))"),
                                 "check");
  ASSERT_TRUE(close.ok()) << close.status();
  EXPECT_EQ(Outcome(**close, torch::ones({3}), torch::ones({3})).status(), v1::OutputCheck::passed);
  EXPECT_EQ(Outcome(**close, torch::ones({3}), torch::zeros({3})).status(), v1::OutputCheck::failed);

  auto none = ScriptCheck::Load(CheckModule(R"(
def forward(self, a: Tensor, b: Tensor) -> None:
    pass)"),
                                "check");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(Outcome(**none, torch::ones({3}), torch::zeros({3})).status(), v1::OutputCheck::passed);
}

TEST(ScriptCheck, AssertionFailsWithItsMessage) {
  auto check = ScriptCheck::Load(CheckModule(R"(
def compare(self, a: Tensor, b: Tensor) -> None:
    assert bool(torch.equal(a, b)), "outputs differ")",
                                             "compare"),
                                 "check");
  ASSERT_TRUE(check.ok()) << check.status();
  const v1::OutputCheck failed = Outcome(**check, torch::ones({2}), torch::zeros({2}));
  EXPECT_EQ(failed.status(), v1::OutputCheck::failed);
  EXPECT_EQ(failed.message(), "outputs differ");
}

TEST(ScriptCheck, OtherErrorsAndReturnTypesPropagate) {
  auto shapes = ScriptCheck::Load(CheckModule(R"(
def forward(self, a: Tensor, b: Tensor) -> bool:
    return bool((a + b).sum() > 0))"),
                                  "check");
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  EXPECT_ANY_THROW(Outcome(**shapes, torch::ones({2}), torch::ones({3})));
  auto tensor = ScriptCheck::Load(CheckModule(R"(
def forward(self, a: Tensor, b: Tensor) -> Tensor:
    return a - b)"),
                                  "check");
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_THROW(Outcome(**tensor, torch::ones({2}), torch::ones({2})), std::runtime_error);
}

TEST(ScriptCheck, NamesItsFileAndSha256WhetherUploadedOrRead) {
  v1::TorchScriptSpec uploaded = CheckModule(R"(
def forward(self, a: Tensor, b: Tensor) -> None:
    pass)");
  uploaded.set_source_name("/home/ann/check.pt");
  const std::string sha256 = "sha256:" + workloads::Sha256Hex(uploaded.module_bytes());
  auto from_bytes = ScriptCheck::Load(uploaded, "check");
  ASSERT_TRUE(from_bytes.ok()) << from_bytes.status();
  EXPECT_EQ((*from_bytes)->file(),
            "/home/ann/check.pt (uploaded, " + std::to_string(uploaded.module_bytes().size()) + " bytes) " + sha256);

  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/check.pt";
  std::ofstream(path, std::ios::binary) << uploaded.module_bytes();
  v1::TorchScriptSpec on_disk;
  on_disk.set_path(path);
  auto from_path = ScriptCheck::Load(on_disk, "check");
  ASSERT_TRUE(from_path.ok()) << from_path.status();
  EXPECT_EQ((*from_path)->file(), path + " (read on the daemon's machine, " +
                                      std::to_string(uploaded.module_bytes().size()) + " bytes) " + sha256);
}

TEST(ScriptCheck, BadModulesNameTheField) {
  v1::TorchScriptSpec garbage;
  garbage.set_module_bytes("not a module");
  EXPECT_NE(ScriptCheck::Load(garbage, "spec.compare.check.torchscript")
                .status()
                .message()
                .find("spec.compare.check.torchscript: not a TorchScript module"),
            std::string::npos);
  v1::TorchScriptSpec missing;
  missing.set_path("/no/such/check.pt");
  EXPECT_EQ(ScriptCheck::Load(missing, "check").status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(ScriptCheck::Load(missing, "check").status().message().find("check.path: the daemon's worker, running as"),
            std::string::npos);
  EXPECT_EQ(ScriptCheck::Load(v1::TorchScriptSpec(), "check").status().code(), absl::StatusCode::kInvalidArgument);
  const auto no_method = ScriptCheck::Load(CheckModule(R"(
def forward(self, a: Tensor, b: Tensor) -> None:
    pass)",
                                                       "verify"),
                                           "check");
  EXPECT_NE(no_method.status().message().find("check.method: the module has no method \"verify\""), std::string::npos)
      << no_method.status();
}

}  // namespace
}  // namespace torchscan::experiment
