#include "daemon/receive_limits.h"

#include <algorithm>
#include <climits>

namespace torchscan::daemon {

int GrpcReceiveLimit(int64_t max_upload_bytes) {
  constexpr int64_t kMiB = int64_t{1} << 20;
  if (max_upload_bytes <= 0) return INT_MAX;
  return static_cast<int>(std::min<int64_t>(std::max(max_upload_bytes + kMiB, 256 * kMiB), INT_MAX));
}

int64_t GrpcMemoryQuota(int64_t max_upload_bytes) { return int64_t{2} * GrpcReceiveLimit(max_upload_bytes); }

}  // namespace torchscan::daemon
