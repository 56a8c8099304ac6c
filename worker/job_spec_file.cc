#include "worker/job_spec_file.h"

#include <unistd.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "io/file_io.h"
#include "io/proto_json.h"
#include "worker/state_folder.h"

namespace torchscan::worker {
namespace {

bool Exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

absl::Status SaveJobSpec(const v1::JobSpec& spec, const std::string& job_dir, int mode) {
  std::string bytes;
  const std::string path = job_dir + "/" + kJobSpecFile;
  if (!spec.SerializeToString(&bytes)) return absl::InternalError(absl::StrCat(path, ": the spec cannot be encoded"));
  return WriteFileAtomic(path, bytes, mode);
}

std::string JobSpecPath(const std::string& job_dir) {
  const std::string binary = job_dir + "/" + kJobSpecFile;
  const std::string json = job_dir + "/" + kJobSpecJsonFile;
  return !Exists(binary) && Exists(json) ? json : binary;
}

absl::Status LoadJobSpec(const std::string& job_dir, v1::JobSpec* spec) {
  const std::string path = JobSpecPath(job_dir);
  if (path == job_dir + "/" + kJobSpecJsonFile) return LoadJsonStrict(path, spec);
  if (!Exists(path))
    return absl::NotFoundError(
        absl::StrCat(job_dir, " holds no job spec: neither ", kJobSpecFile, " nor ", kJobSpecJsonFile));
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  v1::JobSpec parsed;
  if (!parsed.ParseFromString(*bytes))
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a JobSpec in protobuf's binary encoding"));
  *spec = std::move(parsed);
  return absl::OkStatus();
}

}  // namespace torchscan::worker
