// Fuzz target: the request bytes torchscand reads itself, as gRPC hands them over. The input's
// first byte picks the call (its value mod 5: Submit, GetJob/Cancel/FetchResult, ListJobs,
// History, Info) and where the bytes are cut into two gRPC slices (the byte / 5); the rest
// is the serialized request:
//   daemon/received_request.h ParseReceived (daemon/wire_text.h CheckWireText, then protobuf)
//   → for a Submit, spec/job_spec.h ValidateJobSpec with a default and a sandboxed daemon's
//     limits (the shared-path rule: spec.measure.workload.model.torchscript.path ...).
//
// Properties checked for every input (FuzzFail aborts when one breaks):
//  - ParseReceived returns OK exactly when protobuf's own parser accepts the bytes; an error
//    is InvalidArgument whose message names a field path or "request", is UTF-8 (the
//    request's text is never echoed), and is never the fallback "not a valid" (the check and
//    the parser disagreed).
//  - What parsed serializes back to a request that parses as the same message.
//  - ValidateJobSpec returns OK or one of the codes its header lists, naming the field; a
//    sandboxed daemon never accepts what a default one refuses.
// Verdict: kAccepted when ParseReceived accepted the bytes.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/stubs/common.h>
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "daemon/received_request.h"
#include "proto/service.pb.h"
#include "spec/job_spec.h"
#include "tests/fuzz/fuzz_target.h"

namespace torchscan::fuzz {
namespace {

std::unique_ptr<google::protobuf::Message> RequestOfKind(int kind) {
  switch (kind) {
    case 0: return std::make_unique<v1::SubmitRequest>();
    case 1: return std::make_unique<v1::JobRequest>();
    case 2: return std::make_unique<v1::ListJobsRequest>();
    case 3: return std::make_unique<v1::HistoryRequest>();
    default: return std::make_unique<v1::InfoRequest>();
  }
}

// `wire` as gRPC may hand it over: in two slices, the first `cut` bytes long.
grpc::ByteBuffer Received(std::string_view wire, size_t cut) {
  cut = std::min(cut, wire.size());
  std::vector<grpc::Slice> slices;
  slices.emplace_back(wire.data(), cut);
  slices.emplace_back(wire.data() + cut, wire.size() - cut);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

// Starts with a field path as wire_text.h writes one ("spec.label", "spec.measure.workload.
// inputs[1].name", "spec.measure.workload.input_metadata[\"key\"]", "request"): a field name
// (lowercase, digits, '_') followed by ':' ending the path, '.' or '[' continuing it. Map keys
// inside the brackets are the sender's text, so the rest of the path is not constrained.
bool StartsWithAPath(const std::string& message) {
  size_t n = 0;
  while (n < message.size() && (absl::ascii_islower(static_cast<unsigned char>(message[n])) ||
                                absl::ascii_isdigit(static_cast<unsigned char>(message[n])) || message[n] == '_'))
    ++n;
  return n > 0 && absl::ascii_islower(static_cast<unsigned char>(message[0])) && n < message.size() &&
         (message[n] == ':' || message[n] == '.' || message[n] == '[');
}

void ExpectRefusalNamesAField(const absl::Status& status) {
  if (status.code() != absl::StatusCode::kInvalidArgument)
    FuzzFail("ParseReceived: expected InvalidArgument", status.ToString());
  if (!StartsWithAPath(std::string(status.message())))
    FuzzFail("ParseReceived: the refusal names no field", status.ToString());
  if (!google::protobuf::internal::IsStructurallyValidUTF8(status.message().data(),
                                                           static_cast<int>(status.message().size())))
    FuzzFail("ParseReceived: the refusal is not UTF-8 (it echoed the request)", status.ToString());
  // daemon/received_request.cc's words for bytes protobuf's parser refused; a field's echoed
  // (escaped) name or key may itself hold "not a valid", so only the message's start counts.
  if (absl::StartsWith(status.message(), "request: not a valid "))
    FuzzFail("ParseReceived: the wire check passed bytes protobuf's parser refused", status.ToString());
}

void ExpectSubmitValidation(const v1::SubmitRequest& request) {
  spec::JobSpecLimits sandboxed;
  sandboxed.sandboxed = true;
  sandboxed.shared_paths = {"/srv/datasets"};
  const absl::Status by_default = spec::ValidateJobSpec(request.spec(), spec::JobSpecLimits{});
  ExpectJobSpecVerdict(by_default, "ValidateJobSpec, default limits");
  const absl::Status by_sandboxed = spec::ValidateJobSpec(request.spec(), sandboxed);
  ExpectJobSpecVerdict(by_sandboxed, "ValidateJobSpec, a sandboxed daemon sharing /srv/datasets");
  if (!by_default.ok() && by_sandboxed.ok())
    FuzzFail("a sandboxed daemon accepted what a default daemon refuses", by_default.ToString());
}

}  // namespace

Verdict FuzzOne(std::string_view input) {
  static grpc::GrpcLibraryCodegen* const grpc_library = new grpc::GrpcLibraryCodegen();  // gRPC's byte buffers
  (void)grpc_library;
  if (input.empty()) return Verdict::kRejected;
  const auto selector = static_cast<unsigned char>(input[0]);
  const std::string_view wire = input.substr(1);
  const std::unique_ptr<google::protobuf::Message> request = RequestOfKind(selector % 5);
  const std::unique_ptr<google::protobuf::Message> by_protobuf(request->New());
  const bool protobuf_parses = by_protobuf->ParseFromArray(wire.data(), static_cast<int>(wire.size()));

  const absl::Status status = daemon::ParseReceived(Received(wire, selector / 5), request.get());
  if (status.ok() != protobuf_parses)
    FuzzFail(absl::StrCat("ParseReceived and protobuf disagree: protobuf ", protobuf_parses ? "parses" : "refuses"),
             status.ToString());
  if (!status.ok()) {
    ExpectRefusalNamesAField(status);
    return Verdict::kRejected;
  }
  ExpectSameMessage(*by_protobuf, *request, "ParseReceived against protobuf's parser");
  const std::unique_ptr<google::protobuf::Message> reparsed(request->New());
  if (!reparsed->ParseFromString(request->SerializeAsString()))
    FuzzFail("a parsed request does not parse back", request->DebugString());
  ExpectSameMessage(*request, *reparsed, "a parsed request serialized and parsed again");
  if (const auto* submit = dynamic_cast<const v1::SubmitRequest*>(request.get())) ExpectSubmitValidation(*submit);
  return Verdict::kAccepted;
}

}  // namespace torchscan::fuzz
