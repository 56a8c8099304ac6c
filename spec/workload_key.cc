#include "spec/workload_key.h"

#include <cstdint>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include "absl/strings/str_format.h"
#include "spec/model_format.h"

namespace torchscan::spec {

std::string WorkloadKey(const v1::WorkloadSpec& workload) {
  v1::WorkloadSpec work = workload;
  if (const ModelFormat* format = FindModelFormat(work.model()); format != nullptr)
    format->ClearSourceName(work.mutable_model());
  for (v1::InputSpec& input : *work.mutable_inputs()) input.clear_source_name();
  work.clear_input_metadata();
  work.clear_work_units();
  work.clear_work_unit();
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    out.SetSerializationDeterministic(true);
    work.SerializeToCodedStream(&out);
  }
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a, 64-bit offset basis and prime
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return absl::StrFormat("fnv1a64:%016x", hash);
}

}  // namespace torchscan::spec
