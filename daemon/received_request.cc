#include "daemon/received_request.h"

#include <grpcpp/support/proto_buffer_reader.h>

#include "absl/strings/str_cat.h"
#include "daemon/wire_text.h"

namespace torchscan::daemon {

absl::Status ParseReceived(const grpc::ByteBuffer& received, google::protobuf::Message* request) {
  // Each reader walks its own reference to the same slices.
  grpc::ByteBuffer for_check(received), for_parse(received);
  grpc::ProtoBufferReader check_reader(&for_check), parse_reader(&for_parse);
  if (!check_reader.status().ok() || !parse_reader.status().ok())
    return absl::InternalError(
        absl::StrCat("request: gRPC could not read the request's bytes: ", check_reader.status().error_message()));
  const int64_t size = static_cast<int64_t>(received.Length());
  if (absl::Status s = CheckWireText(*request->GetDescriptor(), &check_reader, size); !s.ok()) return s;
  if (!request->ParseFromZeroCopyStream(&parse_reader))
    return absl::InvalidArgumentError(absl::StrCat("request: not a valid ", request->GetDescriptor()->full_name(),
                                                   "; send one serialized by protobuf"));
  return absl::OkStatus();
}

}  // namespace torchscan::daemon
