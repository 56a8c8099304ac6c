// Strict JSON loading of any schema message (job specs, job records, daemon configuration,
// job results): the protobuf JSON mapping with proto field names, as report/json_io.h writes.
//
// Strict and all-or-nothing: an unknown field, a wrong type or malformed JSON gives
// InvalidArgument "<source>: not a valid <Message> JSON file: <the parser's words, which
// name the field>", and `message` is left untouched. A missing or unreadable file gives
// NotFound / PermissionDenied naming the path. Nothing here crashes on hostile input.
#pragma once

#include <string>
#include <string_view>

#include <google/protobuf/message.h>

#include "absl/status/status.h"

namespace torchscan::daemon {

// `source` names the input in errors (a path, "--config", "<request>").
absl::Status ParseJsonMessage(std::string_view json, const std::string& source, google::protobuf::Message* message);

absl::Status LoadJsonMessage(const std::string& path, google::protobuf::Message* message);

}  // namespace torchscan::daemon
