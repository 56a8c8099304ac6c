// FNV-1a, 64 bits: a fast hash that is the same in every process and build (std::hash and
// absl::Hash are not), for checks that are stored or sent: the daemon's record cache
// (daemon/job_cache.h) and the History RPC's page tokens (daemon/history_index.h). Not a
// cryptographic hash: it catches damage and mix-ups, not forgery. Pure; never fails.
#pragma once

#include <cstdint>
#include <string_view>

namespace torchscan {

uint64_t Fnv1a64(std::string_view bytes);

}  // namespace torchscan
