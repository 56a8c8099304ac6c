// How much torchscand's gRPC server receives and holds, from max_upload_bytes, and why.
//
// Measured with Debian's gRPC 1.51: gRPC assembles a whole request before it checks its
// receive limit. A 1 GB request to a daemon whose limit was 9 MiB raised the daemon's peak
// RSS by about 980 MB before the refusal ("Received message larger than max"), so that limit
// decides what reaches TorchScan's code, not what memory a caller can make the daemon hold.
// What bounds memory is gRPC's memory quota (a grpc::ResourceQuota on the server): the bytes
// gRPC holds for all connections together. Past it gRPC resets the stream that needs more
// (RST_STREAM ENHANCE_YOUR_CALM; the caller sees RESOURCE_EXHAUSTED "Received RST_STREAM with
// error code 11") and the daemon keeps serving: with the quota below, a 1 GB request peaked
// the daemon at 545 MB and was reset.
//
// What a caller can make torchscand hold, then: at most GrpcMemoryQuota bytes of received
// requests, over all its connections; plus, for each request being handled, what handling it
// makes of it: the parsed copy and, for a Submit that is stored, the spec with the daemon's
// defaults and its spec file (about four times the request besides its received bytes,
// measured when that file was JSON; the binary spec.binpb is smaller). The service keeps
// each request's received bytes until it answers (service.cc), so the requests
// in progress are themselves within the quota: about 5 x GrpcMemoryQuota at worst (2.5 GiB
// with the default max_upload_bytes of 64 MiB). Measured with a 602 MiB quota and ten 100 MB
// Submits at once: six were read, four reset; the daemon peaked at 1.7 GB when the six were
// refused after the parse and at 3.0 GB when they were stored. A Submit over max_upload_bytes
// is refused from its size before it is parsed (CheckSubmitRequestSize, spec/job_spec.h): it costs
// only its received bytes, released as the refusal is sent.
#pragma once

#include <cstdint>

namespace torchscan::daemon {

// gRPC's receive limit for every request: max(max_upload_bytes + 1 MiB, 256 MiB), at most
// INT_MAX (gRPC's type); INT_MAX when max_upload_bytes <= 0 (no limit). Requests up to it
// reach the service, which refuses a Submit over max_upload_bytes naming the limit (the
// floor lets a caller far over a small limit still read its name); larger ones get gRPC's own
// refusal, which names no setting.
int GrpcReceiveLimit(int64_t max_upload_bytes);

// gRPC's memory quota: twice GrpcReceiveLimit, so that a request of the largest size and as
// much again (other uploads, listings, watches) can be received at once.
int64_t GrpcMemoryQuota(int64_t max_upload_bytes);

}  // namespace torchscan::daemon
