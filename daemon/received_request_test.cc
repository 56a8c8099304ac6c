#include "daemon/received_request.h"

#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <google/protobuf/stubs/logging.h>

#include "proto/service.pb.h"

namespace torchscan::daemon {
namespace {

// `bytes` as gRPC hands a request over: in slices of at most `piece` bytes.
grpc::ByteBuffer Received(const std::string& bytes, size_t piece) {
  std::vector<grpc::Slice> slices;
  for (size_t at = 0; at < bytes.size(); at += piece) slices.emplace_back(bytes.substr(at, piece));
  return grpc::ByteBuffer(slices.data(), slices.size());
}

v1::SubmitRequest Request(const std::string& label) {
  v1::SubmitRequest request;
  request.mutable_spec()->set_label(label);
  request.mutable_spec()
      ->mutable_measure()
      ->mutable_workload()
      ->mutable_model()
      ->mutable_torchscript()
      ->set_module_bytes(std::string(5000, '\xff'));
  return request;
}

TEST(ReceivedRequest, ARequestInManySlicesParsesAsSent) {
  grpc::GrpcLibraryCodegen grpc_library;  // gRPC's core, for its byte buffers
  const v1::SubmitRequest sent = Request("nightly ✓");
  const std::string wire = sent.SerializeAsString();
  for (size_t piece : {size_t{1}, size_t{7}, size_t{4096}, wire.size()}) {
    SCOPED_TRACE(piece);
    const grpc::ByteBuffer received = Received(wire, piece);
    ASSERT_EQ(received.Length(), wire.size());
    v1::SubmitRequest parsed;
    ASSERT_TRUE(ParseReceived(received, &parsed).ok());
    EXPECT_EQ(parsed.SerializeAsString(), wire);
    EXPECT_EQ(received.Length(), wire.size()) << "the buffer was consumed";
  }
}

TEST(ReceivedRequest, ANonUtf8LabelIsRefusedNamingIt) {
  grpc::GrpcLibraryCodegen grpc_library;
  std::string wire;
  {
    google::protobuf::LogSilencer quiet;  // protobuf logs that it serialises invalid UTF-8
    wire = Request("\xff\xfe\xc3").SerializeAsString();
  }
  v1::SubmitRequest parsed;
  const absl::Status s = ParseReceived(Received(wire, 100), &parsed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().find("spec.label: is not UTF-8 (3 bytes)"), 0u) << s;
}

TEST(ReceivedRequest, AMalformedRequestIsRefusedNamingWhere) {
  grpc::GrpcLibraryCodegen grpc_library;
  const std::string wire = Request("x").SerializeAsString();
  v1::SubmitRequest parsed;
  const absl::Status s = ParseReceived(Received(wire.substr(0, wire.size() - 10), 64), &parsed);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().find("request: malformed protobuf at byte 0 of the request (a length of"), 0u) << s;
}

TEST(ReceivedRequest, AnEmptyRequestIsTheEmptyMessage) {
  grpc::GrpcLibraryCodegen grpc_library;
  v1::JobRequest parsed;
  parsed.set_id("left over");
  const grpc::Slice none("");
  EXPECT_TRUE(ParseReceived(grpc::ByteBuffer(&none, 1), &parsed).ok());
  EXPECT_EQ(parsed.id(), "");
}

}  // namespace
}  // namespace torchscan::daemon
