// The request message of a call whose bytes the service reads itself (service.cc), so that
// what gRPC's generated handlers would refuse with INTERNAL and an empty message (a string
// field that is not UTF-8, a malformed encoding) is refused naming the field.
#pragma once

#include <grpcpp/support/byte_buffer.h>

#include <google/protobuf/message.h>
#include "absl/status/status.h"

namespace torchscan::daemon {

// Parses `received` (a request's bytes as gRPC received them, in any number of slices) into
// `request`, which is left as parsed on success and unspecified on failure. Errors:
// InvalidArgument from CheckWireText (wire_text.h), naming the field that is not UTF-8 or
// the message whose encoding is malformed, checked before protobuf parses (so that protobuf
// never logs the refusal); InvalidArgument "request: not a valid <type>" should protobuf
// refuse what that check passed (the two agree on every case tested: wire_text_test.cc);
// Internal when gRPC cannot read the buffer. `received` is only read: its slices are shared,
// not copied.
absl::Status ParseReceived(const grpc::ByteBuffer& received, google::protobuf::Message* request);

}  // namespace torchscan::daemon
