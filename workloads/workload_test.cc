#include "workloads/workload.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <gtest/gtest.h>
#include <torch/script.h>
#include <torch/torch.h>

#include "absl/strings/match.h"
#include "workloads/sha256.h"

namespace torchscan::workloads {
namespace {

using torchscan::v1::GeneratedTensor;
using torchscan::v1::ModelSpec;
using torchscan::v1::WorkloadSpec;

WorkloadSpec Builtin(ModelSpec::Builtin builtin) {
  WorkloadSpec spec;
  spec.mutable_model()->set_builtin(builtin);
  return spec;
}

GeneratedTensor* AddGenerated(WorkloadSpec* spec, std::vector<int64_t> shape) {
  GeneratedTensor* g = spec->add_inputs()->mutable_generated();
  for (int64_t d : shape) g->add_shape(d);
  return g;
}

bool Contains(const absl::Status& s, absl::string_view text) {
  return s.message().find(text) != absl::string_view::npos;
}

// A small TorchScript module made here, saved to bytes.
std::string ScriptBytes(const std::string& source) {
  torch::jit::Module module("Tiny");
  module.register_parameter("weight", torch::randn({16, 8}), false);
  module.register_parameter("bias", torch::randn({16}), false);
  module.define(source);
  std::ostringstream out;
  module.save(out);
  return out.str();
}

WorkloadSpec Script(const std::string& bytes, std::vector<int64_t> input_shape) {
  WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_module_bytes(bytes);
  AddGenerated(&spec, std::move(input_shape));
  return spec;
}

constexpr char kLinearScript[] = R"(
def forward(self, x):
    return torch.linear(x, self.weight, self.bias)

def double(self, x):
    return 2.0 * x
)";

TEST(BuildWorkload, LinearDefaultsMatchTheGuide) {
  const auto w = BuildWorkload(Builtin(ModelSpec::linear));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->work_units, 32);
  EXPECT_EQ(w->work_unit, "samples");
  EXPECT_EQ(w->device->text(), "cpu");
  ASSERT_EQ(w->input_metadata.tensors_size(), 1);
  const auto& x = w->input_metadata.tensors(0);
  EXPECT_EQ(x.name(), "x");
  EXPECT_EQ(std::vector<int64_t>(x.shape().begin(), x.shape().end()), (std::vector<int64_t>{32, 128}));
  EXPECT_EQ(x.dtype(), "float32");
  EXPECT_EQ(x.device(), "cpu");
  const auto& fields = w->input_metadata.fields();
  EXPECT_EQ(fields.at("seed"), "0");
  // The candidate changes are described, not input metadata: comparing them is the point.
  EXPECT_EQ(fields.count("execution_mode"), 0u);
  EXPECT_EQ(w->description.at("execution_mode"), "batch");
  EXPECT_EQ(w->description.at("dtype"), "float32");
  EXPECT_EQ(fields.at("input.x.distribution"), "normal(mean=0, std=1)");
  EXPECT_EQ(fields.at("input.x.seed"), "global generator after model construction");
  EXPECT_EQ(w->description.at("model"), "linear");
  EXPECT_EQ(w->description.at("model_revision").rfind("torchscan 0.", 0), 0u) << w->description.at("model_revision");
  EXPECT_EQ(fields.count("model_revision"), 0u);
  EXPECT_EQ(w->description.at("output"), "tensor [32, 128] float32");
  const at::Tensor out = w->call().toTensor();
  EXPECT_EQ(out.sizes(), (std::vector<int64_t>{32, 128}));
  EXPECT_FALSE(out.requires_grad());
  EXPECT_EQ(w->resident_tensors.size(), 3u);  // weight, bias, x
}

TEST(BuildWorkload, SeedThenModelThenInputsLikeThePythonExample) {
  const auto w = BuildWorkload(Builtin(ModelSpec::linear));
  ASSERT_TRUE(w.ok()) << w.status();
  torch::manual_seed(0);
  torch::nn::Linear model(128, 128);
  const torch::Tensor inputs = torch::randn({32, 128});
  torch::NoGradGuard no_grad;
  EXPECT_TRUE(torch::equal(w->call().toTensor(), model(inputs)));
}

TEST(BuildWorkload, PerSampleStacksRowsAndMatchesBatch) {
  WorkloadSpec spec = Builtin(ModelSpec::linear);
  const auto batch = BuildWorkload(spec);
  spec.set_execution_mode(WorkloadSpec::per_sample);
  const auto per_sample = BuildWorkload(spec);
  ASSERT_TRUE(batch.ok() && per_sample.ok());
  EXPECT_EQ(per_sample->description.at("execution_mode"), "per_sample");
  EXPECT_NE(per_sample->description.at("per_sample").find("stacks"), std::string::npos);
  EXPECT_TRUE(torch::allclose(batch->call().toTensor(), per_sample->call().toTensor(), 1e-4, 1e-5));
}

TEST(BuildWorkload, ResNet18FourImages) {
  WorkloadSpec spec = Builtin(ModelSpec::resnet18);
  const auto w = BuildWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->work_units, 4);
  EXPECT_EQ(w->work_unit, "images");
  EXPECT_EQ(w->description.at("output"), "tensor [4, 1000] float32");
  const at::Tensor logits = w->call().toTensor();
  EXPECT_TRUE(torch::isfinite(logits).all().item<bool>());
  // 11,689,512 parameters in torchvision's resnet18 (+ BN running stats as buffers).
  int64_t parameters = 0;
  for (size_t i = 0; i + 1 < w->resident_tensors.size(); ++i) {
    if (w->resident_tensors[i].is_floating_point() && w->resident_tensors[i].requires_grad()) {
      parameters += w->resident_tensors[i].numel();
    }
  }
  EXPECT_EQ(parameters, 11689512);

  spec.set_execution_mode(WorkloadSpec::per_sample);  // keeps the batch dim, concatenates
  const auto per_sample = BuildWorkload(spec);
  ASSERT_TRUE(per_sample.ok()) << per_sample.status();
  EXPECT_TRUE(torch::allclose(logits, per_sample->call().toTensor(), 1e-4, 1e-5));

  spec.set_execution_mode(WorkloadSpec::batch);
  spec.set_channels_last(true);
  const auto channels_last = BuildWorkload(spec);
  ASSERT_TRUE(channels_last.ok()) << channels_last.status();
  EXPECT_TRUE(torch::allclose(logits, channels_last->call().toTensor(), 1e-4, 1e-4));
  EXPECT_EQ(channels_last->description.at("channels_last"), "true");
}

TEST(BuildWorkload, BertFourSequencesOfEightTokens) {
  WorkloadSpec spec = Builtin(ModelSpec::bert);
  const auto w = BuildWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->work_units, 32);
  EXPECT_EQ(w->work_unit, "tokens");
  EXPECT_NE(w->description.at("throughput_note").find("not autoregressive generation throughput"), std::string::npos);
  EXPECT_NE(w->description.at("config").find("hidden_size=128"), std::string::npos);
  ASSERT_EQ(w->input_metadata.tensors_size(), 3);
  EXPECT_EQ(w->input_metadata.tensors(0).name(), "input_ids");
  EXPECT_EQ(w->input_metadata.tensors(0).dtype(), "int64");
  EXPECT_EQ(w->input_metadata.tensors(1).name(), "attention_mask");
  EXPECT_EQ(w->input_metadata.fields().at("input.input_ids.distribution"), "integers in [0, 1000)");
  EXPECT_EQ(w->input_metadata.fields().at("input.attention_mask.source"), "constant 1 (all tokens visible)");
  const c10::IValue out = w->call();
  ASSERT_TRUE(out.isTuple());
  const auto& elements = out.toTuple()->elements();
  ASSERT_EQ(elements.size(), 2u);
  EXPECT_EQ(elements[0].toTensor().sizes(), (std::vector<int64_t>{4, 8, 128}));
  EXPECT_EQ(elements[1].toTensor().sizes(), (std::vector<int64_t>{4, 128}));
  EXPECT_TRUE(torch::isfinite(elements[0].toTensor()).all().item<bool>());

  spec.set_execution_mode(WorkloadSpec::per_sample);
  const auto per_sample = BuildWorkload(spec);
  ASSERT_TRUE(per_sample.ok()) << per_sample.status();
  const c10::IValue per_sample_out = per_sample->call();
  const auto& p = per_sample_out.toTuple()->elements();
  EXPECT_TRUE(torch::allclose(elements[0].toTensor(), p[0].toTensor(), 1e-4, 1e-5));
  EXPECT_TRUE(torch::allclose(elements[1].toTensor(), p[1].toTensor(), 1e-4, 1e-5));
}

TEST(BuildWorkload, Bfloat16ConvertsWeightsAndInputs) {
  WorkloadSpec spec = Builtin(ModelSpec::linear);
  spec.set_dtype(WorkloadSpec::bfloat16);
  const auto w = BuildWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->call().toTensor().scalar_type(), at::kBFloat16);
  // Input metadata records the source data (float32), so a precision change stays comparable.
  EXPECT_EQ(w->input_metadata.tensors(0).dtype(), "float32");
  EXPECT_EQ(w->description.at("dtype"), "bfloat16");  // a candidate change: described, not input metadata
}

// Which outcome applies is asked of LibTorch directly (a half-precision linear on the CPU,
// outside TorchScan): where it runs, the float16 workload must build and its call return
// finite float16 outputs of the guide's shape; where it throws, the build must be refused
// naming the precision and the device. Either way something is asserted.
TEST(BuildWorkload, Float16RunsWhereLibTorchHasHalfKernelsAndIsRefusedNamingThePrecisionWhereNot) {
  bool half_linear_runs = true;
  try {
    torch::NoGradGuard no_grad;
    (void)torch::linear(torch::ones({2, 4}, torch::kHalf), torch::ones({3, 4}, torch::kHalf),
                        torch::ones({3}, torch::kHalf));
  } catch (const c10::Error&) {
    half_linear_runs = false;
  }
  RecordProperty("float16_on_cpu", half_linear_runs ? "runs: outputs checked" : "refused: message checked");
  WorkloadSpec spec = Builtin(ModelSpec::linear);
  spec.set_dtype(WorkloadSpec::float16);
  const auto w = BuildWorkload(spec);
  if (half_linear_runs) {
    ASSERT_TRUE(w.ok()) << w.status();
    EXPECT_EQ(w->description.at("dtype"), "float16");
    const at::Tensor out = w->call().toTensor();
    EXPECT_EQ(out.scalar_type(), at::kHalf);
    EXPECT_EQ(out.sizes(), (std::vector<int64_t>{32, 128}));
    EXPECT_TRUE(torch::isfinite(out).all().item<bool>());
  } else {
    ASSERT_FALSE(w.ok());
    EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(Contains(w.status(), "precision float16 may lack kernels on cpu")) << w.status();
  }
}

TEST(BuildWorkload, GeneratedInputsWithPrivateSeedAndDistributions) {
  WorkloadSpec spec = Script(ScriptBytes(kLinearScript), {5, 8});
  spec.mutable_inputs(0)->set_name("features");
  auto* g = spec.mutable_inputs(0)->mutable_generated();
  g->set_seed(7);
  g->mutable_uniform()->set_low(-2);
  g->mutable_uniform()->set_high(2);
  const auto a = BuildWorkload(spec);
  spec.set_seed(123);  // the private generator does not depend on the workload seed
  const auto b = BuildWorkload(spec);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  EXPECT_EQ(a->input_metadata.fields().at("input.features.distribution"), "uniform[-2, 2)");
  EXPECT_EQ(a->input_metadata.fields().at("input.features.seed"), "7 (private generator)");
  const at::Tensor xa = a->resident_tensors.back();
  EXPECT_TRUE(torch::equal(xa, b->resident_tensors.back()));
  EXPECT_GE(xa.min().item<float>(), -2);
  EXPECT_LT(xa.max().item<float>(), 2);
  EXPECT_EQ(a->work_units, 5);
  EXPECT_EQ(a->work_unit, "samples");
}

TEST(BuildWorkload, TorchScriptFromFileWithMethodFreezeAndOptimize) {
  const std::string path = ::testing::TempDir() + "/tiny_module.pt";
  const std::string module_bytes = ScriptBytes(kLinearScript);  // each save differs: one copy
  {
    std::ofstream out(path, std::ios::binary);
    out << module_bytes;
  }
  WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_path(path);
  AddGenerated(&spec, {4, 8});
  spec.set_work_units(4);
  spec.set_work_unit("rows");
  const auto plain = BuildWorkload(spec);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_EQ(plain->work_unit, "rows");
  // The model revision is what a comparison of two modules changes: described, not input
  // metadata. It is the file's SHA-256 as sha256sum prints it, read here or uploaded.
  const std::string sha256 = "sha256:" + Sha256Hex(module_bytes);
  EXPECT_EQ(plain->description.at("model_revision"), sha256);
  EXPECT_EQ(plain->description.at("model_source"),
            path + " (read on the daemon's machine, " + std::to_string(module_bytes.size()) + " bytes)");
  WorkloadSpec uploaded = Script(module_bytes, {4, 8});
  uploaded.mutable_model()->mutable_torchscript()->set_source_name("/home/ann/tiny_module.pt");
  const auto sent = BuildWorkload(uploaded);
  ASSERT_TRUE(sent.ok()) << sent.status();
  EXPECT_EQ(sent->description.at("model_revision"), sha256);
  EXPECT_EQ(sent->description.at("model_source"),
            "/home/ann/tiny_module.pt (uploaded, " + std::to_string(module_bytes.size()) + " bytes)");
  EXPECT_EQ(plain->input_metadata.fields().count("model_revision"), 0u);
  EXPECT_EQ(plain->input_metadata.fields().count("model"), 0u);
  spec.set_freeze(true);
  const auto frozen = BuildWorkload(spec);
  ASSERT_TRUE(frozen.ok()) << frozen.status();
  EXPECT_TRUE(torch::allclose(plain->call().toTensor(), frozen->call().toTensor()));
  spec.set_optimize_for_inference(true);
  const auto optimized = BuildWorkload(spec);
  ASSERT_TRUE(optimized.ok()) << optimized.status();
  EXPECT_TRUE(torch::allclose(plain->call().toTensor(), optimized->call().toTensor(), 1e-4, 1e-5));
  EXPECT_EQ(optimized->description.at("optimize_for_inference"), "true");

  spec.set_freeze(false);
  spec.set_optimize_for_inference(false);
  spec.mutable_model()->mutable_torchscript()->set_method("double");
  const auto doubled = BuildWorkload(spec);
  ASSERT_TRUE(doubled.ok()) << doubled.status();
  EXPECT_TRUE(torch::equal(doubled->call().toTensor(), 2.0 * doubled->resident_tensors.back()));
  std::filesystem::remove(path);
}

TEST(BuildWorkload, TensorFileInput) {
  const std::string path = ::testing::TempDir() + "/input.pt";
  const torch::Tensor saved = torch::arange(32, torch::kFloat).reshape({4, 8});
  torch::save(saved, path);
  WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_module_bytes(ScriptBytes(kLinearScript));
  spec.add_inputs()->set_tensor_file(path);
  const auto w = BuildWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE(torch::equal(w->resident_tensors.back(), saved));
  EXPECT_EQ(w->input_metadata.fields().at("input.input0.source"), "tensor file");
  const std::string fingerprint = w->input_metadata.fields().at("input.input0.fingerprint");
  EXPECT_EQ(fingerprint.rfind("sha256:", 0), 0u);
  EXPECT_TRUE(absl::EndsWith(fingerprint, " (dtype, shape and values)")) << fingerprint;
  // Where it was and the file's own SHA-256: described, not input metadata.
  std::ifstream in(path, std::ios::binary);
  const std::string file_bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(w->description.at("input.input0.file"),
            path + " (read on the daemon's machine, " + std::to_string(file_bytes.size()) + " bytes)");
  EXPECT_EQ(w->description.at("input.input0.sha256"), "sha256:" + Sha256Hex(file_bytes));
  EXPECT_EQ(w->input_metadata.fields().count("input.input0.sha256"), 0u);

  // The same file sent with the job: the same input, the same file, another way of coming.
  spec.mutable_inputs(0)->set_tensor_bytes(file_bytes);
  spec.mutable_inputs(0)->set_source_name("/home/ann/input.pt");
  const auto sent = BuildWorkload(spec);
  ASSERT_TRUE(sent.ok()) << sent.status();
  EXPECT_TRUE(torch::equal(sent->resident_tensors.back(), saved));
  EXPECT_EQ(sent->input_metadata.fields().at("input.input0.fingerprint"), fingerprint);
  EXPECT_EQ(sent->description.at("input.input0.sha256"), w->description.at("input.input0.sha256"));
  EXPECT_EQ(sent->description.at("input.input0.file"),
            "/home/ann/input.pt (uploaded, " + std::to_string(file_bytes.size()) + " bytes)");
  std::filesystem::remove(path);
}

void WriteBytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// torch::pickle_save writes the zip format of Python's torch.save (tests/python_models_test
// reads files made by Python itself).
TEST(BuildWorkload, TensorFileInTorchSaveFormatHasTheFingerprintOfItsContents) {
  const std::string python_path = ::testing::TempDir() + "/python_format.pt";
  const std::string cpp_path = ::testing::TempDir() + "/cpp_format.pt";
  const torch::Tensor saved = torch::arange(32, torch::kFloat).reshape({4, 8});
  WriteBytes(python_path, torch::pickle_save(saved));
  torch::save(saved, cpp_path);
  WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_module_bytes(ScriptBytes(kLinearScript));
  spec.add_inputs()->set_tensor_file(python_path);
  const auto from_python = BuildWorkload(spec);
  ASSERT_TRUE(from_python.ok()) << from_python.status();
  EXPECT_TRUE(torch::equal(from_python->resident_tensors.back(), saved));
  spec.mutable_inputs(0)->set_tensor_file(cpp_path);
  const auto from_cpp = BuildWorkload(spec);
  ASSERT_TRUE(from_cpp.ok()) << from_cpp.status();
  // Same values in two formats and files: the same input.
  EXPECT_EQ(from_python->input_metadata.fields().at("input.input0.fingerprint"),
            from_cpp->input_metadata.fields().at("input.input0.fingerprint"));
  WriteBytes(python_path, torch::pickle_save(saved + 1));
  const auto changed = BuildWorkload([&] {
    spec.mutable_inputs(0)->set_tensor_file(python_path);
    return spec;
  }());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_NE(changed->input_metadata.fields().at("input.input0.fingerprint"),
            from_cpp->input_metadata.fields().at("input.input0.fingerprint"));
  std::filesystem::remove(python_path);
  std::filesystem::remove(cpp_path);
}

TEST(BuildWorkloadErrors, TensorFilesLibTorchCannotReadSayWhichFormatsWork) {
  const std::string path = ::testing::TempDir() + "/not_a_tensor.pt";
  WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_module_bytes(ScriptBytes(kLinearScript));
  spec.add_inputs()->set_tensor_file(path);
  // torch.save(..., _use_new_zipfile_serialization=False) starts with a pickle, not a zip.
  WriteBytes(path, {'\x80', '\x02', '\x8a', '\x0a', 'l', '\xfc'});
  auto w = BuildWorkload(spec);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(w.status(), "inputs[0].tensor_file"));
  EXPECT_TRUE(Contains(w.status(), "legacy format")) << w.status();
  EXPECT_TRUE(Contains(w.status(), "Python's torch.save in its zip format")) << w.status();
  c10::impl::GenericList list(c10::TensorType::get());
  list.push_back(torch::ones({2}));
  WriteBytes(path, torch::pickle_save(list));
  w = BuildWorkload(spec);
  EXPECT_TRUE(Contains(w.status(), "holds a GenericList, not one tensor")) << w.status();
  spec.mutable_inputs(0)->set_tensor_bytes(std::string("\x80\x02\x8a\x0al", 5));
  spec.mutable_inputs(0)->set_source_name("/home/ann/legacy.pt");
  w = BuildWorkload(spec);
  EXPECT_TRUE(Contains(w.status(), "inputs[0].tensor_bytes: '/home/ann/legacy.pt' is not a zip archive")) << w.status();
  std::filesystem::remove(path);
}

TEST(BuildWorkload, CallerInputMetadataIsRecordedUnderItsKeys) {
  WorkloadSpec spec = Builtin(ModelSpec::linear);
  (*spec.mutable_input_metadata())["dataset_revision"] = "v3";
  const auto w = BuildWorkload(spec);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(w->input_metadata.fields().at("dataset_revision"), "v3");
  (*spec.mutable_input_metadata())["seed"] = "7";
  EXPECT_TRUE(Contains(BuildWorkload(spec).status(), "input_metadata: key \"seed\" is TorchScan's own"));
}

// The module allows one call: the first call of the workload is that one only when the
// build made no trial call.
TEST(BuildWorkload, WithoutATrialCallTheModelIsNeverCalled) {
  torch::jit::Module m("Counter");
  m.register_attribute("calls", c10::IntType::get(), int64_t{0});
  m.define(R"(
def forward(self, x):
    self.calls += 1
    assert self.calls <= 1, "called twice"
    return x
)");
  std::ostringstream bytes;
  m.save(bytes);
  const WorkloadSpec spec = Script(bytes.str(), {2, 2});
  WorkloadOptions options;
  options.trial_call = false;
  const auto untried = BuildWorkload(spec, options);
  ASSERT_TRUE(untried.ok()) << untried.status();
  EXPECT_EQ(untried->description.at("output"), "not described (built without a trial call)");
  EXPECT_NO_THROW(untried->call());
  EXPECT_THROW(untried->call(), std::exception);
  const auto tried = BuildWorkload(spec);  // default: one trial call, so the next one is the second
  ASSERT_TRUE(tried.ok()) << tried.status();
  EXPECT_EQ(tried->description.at("output"), "tensor [2, 2] float32");
  EXPECT_THROW(tried->call(), std::exception);
}

// ---------------------------------------------------------------- errors

TEST(BuildWorkloadErrors, UnsupportedDevicesNameTheDevice) {
  WorkloadSpec spec = Builtin(ModelSpec::linear);
  spec.set_device("mps");
  auto w = BuildWorkload(spec);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(w.status(), "'mps'"));
  spec.set_device("tpu:0");
  w = BuildWorkload(spec);
  EXPECT_TRUE(Contains(w.status(), "'tpu:0'"));
}

TEST(BuildWorkloadErrors, BadTorchScriptBytes) {
  const auto w = BuildWorkload(Script("definitely not a zip archive", {4, 8}));
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(w.status(), "model.torchscript.module_bytes are not a TorchScript module")) << w.status();
  const auto empty = BuildWorkload(Script("", {4, 8}));
  EXPECT_TRUE(Contains(empty.status(), "model.torchscript.module_bytes: is empty")) << empty.status();
}

TEST(BuildWorkloadErrors, MissingTorchScriptFile) {
  WorkloadSpec spec;
  spec.mutable_model()->mutable_torchscript()->set_path("/nonexistent/model.pt");
  AddGenerated(&spec, {4, 8});
  const auto w = BuildWorkload(spec);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Contains(w.status(), "model.torchscript.path"));
}

TEST(BuildWorkloadErrors, MissingMethodListsTheMethods) {
  WorkloadSpec spec = Script(ScriptBytes(kLinearScript), {4, 8});
  spec.mutable_model()->mutable_torchscript()->set_method("predict");
  const auto w = BuildWorkload(spec);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(w.status(), "no method 'predict'")) << w.status();
  EXPECT_TRUE(Contains(w.status(), "forward"));
}

TEST(BuildWorkloadErrors, InputsThatDoNotFitTheModel) {
  WorkloadSpec spec = Builtin(ModelSpec::linear);
  AddGenerated(&spec, {32, 64});
  auto w = BuildWorkload(spec);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(w.status(),
                       "the inputs do not fit the model: forward(input0: Tensor[32, 64] float32) on cpu "
                       "failed: "))
      << w.status();
  // The fix, naming the spec's field (each client names it its own way: a flag, a keyword).
  EXPECT_TRUE(Contains(w.status(), "one input per argument, in that order")) << w.status();
  EXPECT_TRUE(Contains(w.status(), "(WorkloadSpec.inputs)")) << w.status();

  // A TorchScript error: its own error line, on one line, without the interpreter's traceback.
  w = BuildWorkload(Script(ScriptBytes(kLinearScript), {4, 9}));
  EXPECT_TRUE(Contains(w.status(),
                       "the inputs do not fit the model: forward(input0: Tensor[4, 9] float32) on cpu "
                       "failed: "))
      << w.status();
  EXPECT_FALSE(Contains(w.status(), "\n")) << w.status();
  EXPECT_FALSE(Contains(w.status(), "Traceback")) << w.status();
  // A TorchScript method's own signature, beside the call that was made.
  EXPECT_TRUE(Contains(w.status(), "; the method is forward(")) << w.status();

  // per_sample: the shapes one forward sees.
  WorkloadSpec samples = Script(ScriptBytes(kLinearScript), {4, 9});
  samples.set_execution_mode(WorkloadSpec::per_sample);
  w = BuildWorkload(samples);
  EXPECT_TRUE(Contains(w.status(), "forward(input0: Tensor[9] float32)")) << w.status();

  WorkloadSpec two = Script(ScriptBytes(kLinearScript), {4, 8});
  AddGenerated(&two, {4, 8});
  w = BuildWorkload(two);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kInvalidArgument);

  WorkloadSpec resnet = Builtin(ModelSpec::resnet18);
  AddGenerated(&resnet, {4, 3});
  AddGenerated(&resnet, {4, 3});
  w = BuildWorkload(resnet);
  EXPECT_TRUE(Contains(w.status(), "takes 1 input")) << w.status();
}

TEST(BuildWorkloadErrors, ShapeOverTheMemoryLimitIsRefusedBeforeAllocating) {
  WorkloadSpec spec = Builtin(ModelSpec::linear);
  AddGenerated(&spec, {1 << 20, 1 << 20});  // 4 TiB of float32
  auto w = BuildWorkload(spec);
  EXPECT_EQ(w.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(Contains(w.status(), "inputs[0].generated.shape: [1048576, 1048576] float32 needs 4398046511104 bytes"))
      << w.status();
  EXPECT_TRUE(Contains(w.status(), "max_input_bytes"));

  WorkloadOptions small;
  small.max_input_bytes = 1000;
  w = BuildWorkload(Builtin(ModelSpec::linear), small);  // the default 32x128 needs 16384
  EXPECT_EQ(w.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE(Contains(w.status(), "16384 bytes"));

  WorkloadSpec overflow = Builtin(ModelSpec::linear);
  AddGenerated(&overflow, {int64_t{1} << 40, int64_t{1} << 40});
  EXPECT_EQ(BuildWorkload(overflow).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BuildWorkloadErrors, InvalidSpecsNameTheField) {
  WorkloadSpec none;
  EXPECT_TRUE(Contains(BuildWorkload(none).status(), "workload.model: required"));
  EXPECT_TRUE(Contains(BuildWorkload(Builtin(ModelSpec::builtin_unspecified)).status(), "model.builtin"));

  WorkloadSpec freeze = Builtin(ModelSpec::resnet18);
  freeze.set_freeze(true);
  EXPECT_TRUE(Contains(BuildWorkload(freeze).status(), "TorchScript models only"));

  WorkloadSpec no_inputs;
  no_inputs.mutable_model()->mutable_torchscript()->set_module_bytes(ScriptBytes(kLinearScript));
  EXPECT_TRUE(Contains(BuildWorkload(no_inputs).status(), "needs its inputs"));

  WorkloadSpec negative = Builtin(ModelSpec::linear);
  AddGenerated(&negative, {-1, 128});
  EXPECT_TRUE(Contains(BuildWorkload(negative).status(), "inputs[0].generated.shape[0]: -1 is negative"));

  WorkloadSpec range = Builtin(ModelSpec::linear);
  AddGenerated(&range, {32, 128})->mutable_integers()->set_high(0);
  EXPECT_TRUE(Contains(BuildWorkload(range).status(), "inputs[0].generated.integers"));

  WorkloadSpec int_normal = Builtin(ModelSpec::linear);
  AddGenerated(&int_normal, {32, 128})->set_dtype(GeneratedTensor::int64);
  EXPECT_TRUE(Contains(BuildWorkload(int_normal).status(), "needs the integers distribution"));

  WorkloadSpec std_zero = Builtin(ModelSpec::linear);
  AddGenerated(&std_zero, {32, 128})->mutable_normal()->set_std(0);
  EXPECT_TRUE(Contains(BuildWorkload(std_zero).status(), "normal.std"));

  WorkloadSpec no_source = Builtin(ModelSpec::linear);
  no_source.add_inputs();
  EXPECT_TRUE(Contains(BuildWorkload(no_source).status(), "inputs[0]: set generated, tensor_file or tensor_bytes"));

  WorkloadSpec missing_file = Builtin(ModelSpec::linear);
  missing_file.add_inputs()->set_tensor_file("/nonexistent/x.pt");
  EXPECT_EQ(BuildWorkload(missing_file).status().code(), absl::StatusCode::kNotFound);

  WorkloadSpec channels_last = Builtin(ModelSpec::linear);
  channels_last.set_channels_last(true);
  EXPECT_TRUE(Contains(BuildWorkload(channels_last).status(), "channels_last"));

  WorkloadSpec scalar = Script(ScriptBytes(kLinearScript), {});
  scalar.set_execution_mode(WorkloadSpec::per_sample);
  EXPECT_TRUE(Contains(BuildWorkload(scalar).status(), "per_sample"));
}

// Token ids past an embedding's table: the error points at the generated range and the fix.
TEST(BuildWorkload, IdsPastAnEmbeddingNameTheirGeneratedRange) {
  WorkloadSpec spec = Script(ScriptBytes(R"(
def forward(self, ids):
    return torch.embedding(self.weight, ids)
)"),
                             {});
  spec.mutable_inputs(0)->set_name("ids");
  GeneratedTensor* ids = spec.mutable_inputs(0)->mutable_generated();
  ids->add_shape(4);
  ids->set_dtype(GeneratedTensor::int64);
  ids->mutable_integers()->set_high(30522);  // the table has 16 rows
  const auto past = BuildWorkload(spec);
  ASSERT_FALSE(past.ok());
  EXPECT_TRUE(Contains(past.status(), "index out of range")) << past.status();
  EXPECT_TRUE(Contains(past.status(), "input ids is generated in 0..30522 (inputs[0].generated.integers)"))
      << past.status();
  EXPECT_TRUE(Contains(past.status(), "--input NAME=SHAPE:int64:0..VOCAB")) << past.status();
  ids->mutable_integers()->set_high(16);
  const auto within = BuildWorkload(spec);
  EXPECT_TRUE(within.ok()) << within.status();
}

}  // namespace
}  // namespace torchscan::workloads
