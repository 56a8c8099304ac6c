#include "daemon/json_message.h"

#include <memory>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "report/json_io.h"

namespace torchscan::daemon {

absl::Status ParseJsonMessage(std::string_view json, const std::string& source, google::protobuf::Message* message) {
  std::unique_ptr<google::protobuf::Message> parsed(message->New());
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  const auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(json.data(), json.size()), parsed.get(), options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": not a valid ", message->GetDescriptor()->name(),
                                                   " JSON file: ", std::string(status.message())));
  }
  message->CopyFrom(*parsed);
  return absl::OkStatus();
}

absl::Status LoadJsonMessage(const std::string& path, google::protobuf::Message* message) {
  absl::StatusOr<std::string> json = ReadFile(path);
  if (!json.ok()) return json.status();
  return ParseJsonMessage(*json, path, message);
}

}  // namespace torchscan::daemon
