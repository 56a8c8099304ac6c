#include "client/job_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/match.h"
#include "io/proto_json.h"
#include "io/zip_fixture.h"
#include "spec/job_spec.h"

namespace torchscan {
namespace {

namespace fs = std::filesystem;

std::string Dir(const std::string& name) {
  const std::string dir = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  fs::create_directories(dir);
  return dir;
}

std::string Write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Runs the test body from `dir`, as a user typing relative paths there would.
class InDirectory {
 public:
  explicit InDirectory(const std::string& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~InDirectory() { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

TEST(ResolveClientPath, RelativePathsAreTakenFromTheWorkingDirectoryOrTheGivenFolder) {
  const std::string dir = Dir("resolve");
  InDirectory here(dir);
  EXPECT_EQ(ResolveClientPath("mlp.pt"), dir + "/mlp.pt");
  EXPECT_EQ(ResolveClientPath("models/../mlp.pt"), dir + "/mlp.pt");
  EXPECT_EQ(ResolveClientPath("mlp.pt", "/jobs/a"), "/jobs/a/mlp.pt");
  EXPECT_EQ(ResolveClientPath("/data//x/./mlp.pt", "/jobs/a"), "/data/x/mlp.pt");
  EXPECT_EQ(ResolveClientPath(""), "");
}

TEST(SetModuleFile, UploadsARelativePathFromAnotherWorkingDirectory) {
  const std::string models = Dir("upload/models"), work = Dir("upload/work");
  Write(models + "/mlp.pt", TorchScriptZip());
  Write(models + "/x.pt", TorchSaveZip());
  InDirectory here(work);
  v1::TorchScriptSpec module;
  ASSERT_TRUE(SetModuleFile("../models/mlp.pt", FileTransport::kUpload, &module).ok());
  EXPECT_EQ(module.module_bytes(), TorchScriptZip());
  EXPECT_EQ(module.source_name(), models + "/mlp.pt");  // where it was, for the report
  EXPECT_FALSE(module.has_path());

  v1::InputSpec input;
  input.set_name("x");
  ASSERT_TRUE(SetTensorFile("../models/x.pt", FileTransport::kUpload, &input).ok());
  EXPECT_EQ(input.tensor_bytes(), TorchSaveZip());
  EXPECT_EQ(input.source_name(), models + "/x.pt");
  EXPECT_EQ(input.name(), "x");
}

// What is no module is refused before anything is sent, naming the file and the fix; a
// module given as an input file too.
TEST(SetModuleFile, AFileThatIsNoModuleIsRefusedBeforeSending) {
  const std::string dir = Dir("not_modules");
  Write(dir + "/state_dict.pt", TorchSaveZip());
  Write(dir + "/notes.txt", "not PyTorch's at all");
  Write(dir + "/model.pt", TorchScriptZip());
  v1::TorchScriptSpec module;
  const absl::Status data = SetModuleFile(dir + "/state_dict.pt", FileTransport::kUpload, &module);
  EXPECT_EQ(data.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(data.message(), "'" + dir +
                                "/state_dict.pt' holds data saved with torch.save (a tensor, a state_dict or a "
                                "pickled nn.Module), not a model: save the module with "
                                "torch.jit.script(model).save(path) (or torch.jit.trace(model, inputs)), or compile "
                                "it into a package with torch._inductor.aoti_compile_and_package(torch.export.export("
                                "model, inputs), package_path=\"model.pt2\")");
  const absl::Status text = SetModuleFile(dir + "/notes.txt", FileTransport::kUpload, &module);
  EXPECT_TRUE(absl::StrContains(
      text.message(), "notes.txt' is not a TorchScript module or an AOTInductor package (not the zip archive"))
      << text;
  EXPECT_FALSE(module.has_module_bytes());
  v1::InputSpec input;
  const absl::Status swapped = SetTensorFile(dir + "/model.pt", FileTransport::kUpload, &input);
  EXPECT_TRUE(absl::StrContains(swapped.message(), "model.pt' is a TorchScript module, not a tensor")) << swapped;
  // With --daemon-path the client does not read the file: the worker does.
  EXPECT_TRUE(SetModuleFile(dir + "/notes.txt", FileTransport::kDaemonPath, &module).ok());
}

// A model file's format comes from its zip entries; a path kept for the daemon's from its name.
TEST(SetModelFile, APackageOrAModuleIsRecognisedAndAnExportedProgramIsNamed) {
  const std::string dir = Dir("model_files");
  Write(dir + "/model.pt2", AotInductorZip());
  Write(dir + "/model.pt", TorchScriptZip());
  Write(dir + "/exported.pt2", ExportedProgramZip());
  v1::ModelSpec model;
  ASSERT_TRUE(SetModelFile(dir + "/model.pt2", FileTransport::kUpload, &model).ok());
  EXPECT_EQ(model.aot_inductor().package_bytes(), AotInductorZip());
  EXPECT_EQ(model.aot_inductor().source_name(), dir + "/model.pt2");
  ASSERT_TRUE(SetModelFile(dir + "/model.pt", FileTransport::kUpload, &model).ok());
  EXPECT_EQ(model.torchscript().module_bytes(), TorchScriptZip());

  const absl::Status exported = SetModelFile(dir + "/exported.pt2", FileTransport::kUpload, &model);
  EXPECT_TRUE(
      absl::StrContains(exported.message(), "exported.pt2' is an exported program saved with torch.export.save"))
      << exported;
  // A job file that names a package as a TorchScript module is told which it is.
  const absl::Status named =
      SetModelFile(dir + "/model.pt2", FileTransport::kUpload, &model, "", &spec::TorchScriptFormat());
  EXPECT_TRUE(absl::StrContains(named.message(),
                                "model.pt2' is an AOTInductor package, named as model.torchscript: "
                                "name it as model.aot_inductor"))
      << named;
  // A check module must be TorchScript.
  v1::TorchScriptSpec check;
  EXPECT_TRUE(absl::StrContains(SetModuleFile(dir + "/model.pt2", FileTransport::kUpload, &check).message(),
                                "is an AOTInductor package; a check module is a TorchScript module"));

  ASSERT_TRUE(SetModelFile(dir + "/model.pt2", FileTransport::kDaemonPath, &model).ok());
  EXPECT_EQ(model.aot_inductor().path(), dir + "/model.pt2");
  ASSERT_TRUE(SetModelFile(dir + "/model.pt", FileTransport::kDaemonPath, &model).ok());
  EXPECT_EQ(model.torchscript().path(), dir + "/model.pt");
}

TEST(SetModuleFile, AMissingFileIsNamedWithWhereARelativePathWasLookedFor) {
  const std::string work = Dir("missing");
  InDirectory here(work);
  v1::TorchScriptSpec module;
  const absl::Status s = SetModuleFile("mlp.pt", FileTransport::kUpload, &module);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  for (const std::string& part : {"cannot read '" + work + "/mlp.pt'",
                                  std::string("\"mlp.pt\" relative to the working "
                                              "directory ") +
                                      work,
                                  std::string("No such file or directory"), std::string("--daemon-path")})
    EXPECT_TRUE(absl::StrContains(s.message(), part)) << part << " in " << s;

  for (const std::string& not_a_file : {work, std::string("/dev/zero")}) {
    const absl::Status refused = SetModuleFile(not_a_file, FileTransport::kUpload, &module);
    EXPECT_TRUE(absl::StrContains(refused.message(), "is not a regular file")) << refused;
  }
}

TEST(SetModuleFile, DaemonPathSendsTheAbsolutePathUnread) {
  const std::string work = Dir("daemon_path");
  InDirectory here(work);
  v1::TorchScriptSpec module;
  ASSERT_TRUE(SetModuleFile("shared/mlp.pt", FileTransport::kDaemonPath, &module).ok());  // not here: not read
  EXPECT_EQ(module.path(), work + "/shared/mlp.pt");
  EXPECT_TRUE(module.module_bytes().empty());
  v1::InputSpec input;
  ASSERT_TRUE(SetTensorFile("/data/x.pt", FileTransport::kDaemonPath, &input).ok());
  EXPECT_EQ(input.tensor_file(), "/data/x.pt");
}

// A job file names its files relative to its own folder, wherever the client runs.
TEST(ResolveJobFiles, UploadsEveryFileOfAJobFileRelativeToItsFolder) {
  const std::string jobs = Dir("job_files/jobs"), elsewhere = Dir("job_files/elsewhere");
  const std::string base = ZipOf({"base/code/base.py"}), cand = ZipOf({"cand/code/cand.py"}),
                    check = ZipOf({"check/code/check.py"});
  Write(jobs + "/base.pt", base);
  Write(jobs + "/cand.pt", cand);
  Write(jobs + "/check.pt", check);
  Write(jobs + "/x.pt", "tensor");
  const std::string job = Write(jobs + "/job.json", R"({"compare": {
      "baseline": {"model": {"torchscript": {"path": "base.pt"}}, "inputs": [{"tensor_file": "x.pt"}]},
      "candidate": {"model": {"torchscript": {"path": "cand.pt", "method": "fast"}},
                    "inputs": [{"generated": {"shape": [2]}}]},
      "check": {"torchscript": {"path": "check.pt"}}}})");
  InDirectory here(elsewhere);
  v1::JobSpec spec;
  ASSERT_TRUE(LoadJsonStrict(job, &spec).ok());
  v1::JobSpec paths = spec;
  ASSERT_TRUE(ResolveJobFiles("../jobs/job.json", FileTransport::kUpload, &spec).ok());
  const v1::CompareJob& c = spec.compare();
  EXPECT_EQ(c.baseline().model().torchscript().module_bytes(), base);
  EXPECT_EQ(c.baseline().model().torchscript().source_name(), jobs + "/base.pt");
  EXPECT_EQ(c.baseline().inputs(0).tensor_bytes(), "tensor");
  EXPECT_EQ(c.baseline().inputs(0).source_name(), jobs + "/x.pt");
  EXPECT_EQ(c.candidate().model().torchscript().module_bytes(), cand);
  EXPECT_EQ(c.candidate().model().torchscript().method(), "fast");
  EXPECT_TRUE(c.candidate().inputs(0).has_generated());
  EXPECT_EQ(c.check().torchscript().module_bytes(), check);

  ASSERT_TRUE(ResolveJobFiles("../jobs/job.json", FileTransport::kDaemonPath, &paths).ok());
  EXPECT_EQ(paths.compare().baseline().model().torchscript().path(), jobs + "/base.pt");
  EXPECT_EQ(paths.compare().baseline().inputs(0).tensor_file(), jobs + "/x.pt");
  EXPECT_EQ(paths.compare().check().torchscript().path(), jobs + "/check.pt");
}

TEST(ResolveJobFiles, AMissingFileNamesTheJobFileAndTheField) {
  const std::string jobs = Dir("job_missing");
  const std::string job = Write(jobs + "/job.json", "{}");
  v1::JobSpec spec;
  spec.mutable_measure()->mutable_workload()->mutable_model()->mutable_torchscript()->set_module_bytes("inline");
  spec.mutable_measure()->mutable_workload()->add_inputs()->set_tensor_file("data/x.pt");
  const absl::Status s = ResolveJobFiles(job, FileTransport::kUpload, &spec);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind(job + ": spec.measure.workload.inputs[0].tensor_file: cannot read '" + jobs +
                                  "/data/x.pt' (\"data/x.pt\" relative to " + jobs + ")",
                              0),
            0u)
      << s;
  EXPECT_EQ(spec.measure().workload().model().torchscript().module_bytes(), "inline");  // bytes stay as written
}

// What the client checks against the daemon's max_upload_bytes before it submits.
TEST(SetModuleFile, AnUploadOverTheDaemonsLimitNamesTheFileAndTheLimit) {
  const std::string dir = Dir("over_limit");
  std::vector<std::string> names;  // 300 kB of entry names: a module the size of the test
  for (int i = 0; i < 300; ++i) names.push_back("big/code/" + std::to_string(i) + std::string(1000, 'b'));
  const std::string big = ZipOf(names);
  Write(dir + "/big.pt", big);
  v1::JobSpec spec;
  v1::WorkloadSpec* w = spec.mutable_measure()->mutable_workload();
  ASSERT_TRUE(SetModuleFile(dir + "/big.pt", FileTransport::kUpload, w->mutable_model()->mutable_torchscript()).ok());
  w->add_inputs()->mutable_generated()->add_shape(2);
  const absl::Status s = spec::CheckUploadSize(spec, 100000);
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  for (const std::string& part :
       {std::string("max_upload_bytes 100000"), dir + "/big.pt " + std::to_string(big.size()) + " bytes",
        std::string("--daemon-path")})
    EXPECT_TRUE(absl::StrContains(s.message(), part)) << part << " in " << s;
  v1::JobSpec by_path;
  ASSERT_TRUE(SetModuleFile(dir + "/big.pt", FileTransport::kDaemonPath,
                            by_path.mutable_measure()->mutable_workload()->mutable_model()->mutable_torchscript())
                  .ok());
  EXPECT_TRUE(spec::CheckUploadSize(by_path, 100000).ok());  // the way out it names
}

}  // namespace
}  // namespace torchscan
