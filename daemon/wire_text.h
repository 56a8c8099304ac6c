// Checks a serialized protobuf message before it is parsed, so that a refusal names the
// field. A proto3 string field must hold UTF-8: protobuf's parser refuses one that does not
// and says only that the parse failed (gRPC's generated handlers then answer INTERNAL with an
// empty message). This walk over the wire format finds which field it was, and where a
// malformed encoding went wrong. gRPC-free; the service runs it on every request it receives
// (received_request.h).
#pragma once

#include <cstdint>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/zero_copy_stream.h>
#include "absl/status/status.h"

namespace torchscan::daemon {

// OK when the `size` bytes of `wire` are a serialized `type` that protobuf's parser accepts
// (Message::ParseFromZeroCopyStream): well-formed wire format, messages nested at most 100
// deep, and every proto3 string field (map keys and values included) UTF-8 by protobuf's own
// rule. Otherwise InvalidArgument:
//   "<path>: is not UTF-8 (N bytes); ..." for the first such field in wire order, its path
//       in field names as spec/printable_text.h writes them ("spec.label",
//       "spec.measure.workload.inputs[1].name", "spec.measure.workload.input_metadata[\"k\"]"
//       for a map value), or "<map path>: a key is not UTF-8 (N bytes); ..." for a map key;
//   "<path>: malformed protobuf at byte N of the request (<what went wrong>); send a serialized
//       <type's full name>" for a truncated or malformed encoding, <path> the message it was
//       in ("request" at the top), N counted from the start of `wire`.
// Bytes fields and unknown fields (which the parser keeps as bytes) are not looked into; a
// known field sent with another wire type is an unknown field, as for the parser. The text
// itself is never echoed. `size` must be below 2 GiB (protobuf's own bound).
absl::Status CheckWireText(const google::protobuf::Descriptor& type, google::protobuf::io::ZeroCopyInputStream* wire,
                           int64_t size);

}  // namespace torchscan::daemon
