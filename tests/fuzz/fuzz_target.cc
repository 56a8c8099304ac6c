#include "tests/fuzz/fuzz_target.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace torchscan::fuzz {

void FuzzFail(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "fuzz property broken: %s\n%s\n", what.c_str(), detail.c_str());
  std::fflush(stderr);
  std::abort();
}

void ExpectError(const absl::Status& status, absl::StatusCode code, const std::string& prefix,
                 const std::string& what) {
  if (status.code() != code)
    FuzzFail(absl::StrCat(what, ": expected ", absl::StatusCodeToString(code)), status.ToString());
  if (!absl::StartsWith(status.message(), prefix))
    FuzzFail(absl::StrCat(what, ": the message does not start with \"", prefix, "\""), status.ToString());
}

void ExpectJobSpecVerdict(const absl::Status& status, const std::string& what) {
  if (status.ok()) return;
  switch (status.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kFailedPrecondition: ExpectError(status, status.code(), "spec", what); return;
    default: FuzzFail(absl::StrCat(what, ": a code ValidateJobSpec's header does not list"), status.ToString());
  }
}

namespace {

std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

}  // namespace

void ExpectSameMessage(const google::protobuf::Message& original, const google::protobuf::Message& reloaded,
                       const std::string& what) {
  if (DeterministicBytes(original) != DeterministicBytes(reloaded))
    FuzzFail(absl::StrCat(what, ": the reloaded message differs"),
             absl::StrCat("original:\n", original.DebugString(), "reloaded:\n", reloaded.DebugString()));
}

InputFile& InputFile::Get() {
  static InputFile* file = new InputFile();
  return *file;
}

InputFile::InputFile() {
  fd_ = memfd_create("torchscan-fuzz-input", MFD_CLOEXEC);
  if (fd_ < 0) FuzzFail("memfd_create", std::strerror(errno));
  path_ = absl::StrCat("/proc/self/fd/", fd_);
}

void InputFile::Write(std::string_view bytes) {
  if (ftruncate(fd_, 0) != 0) FuzzFail("ftruncate of the input file", std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) FuzzFail("pwrite of the input file", std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

}  // namespace torchscan::fuzz
