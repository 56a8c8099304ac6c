// torchscand's command-line flags: each one fills its ConfigFlags field (daemon/config.h),
// and each help text that states a default formats it from proto/spec_limits.h, so that
// `torchscand --help` says what ApplyDefaults applies. gRPC-free and LibTorch-free.
#pragma once

#include "daemon/config.h"

namespace CLI {
class App;
}

namespace torchscan::daemon {

// Registers the configuration flags (--config, --listen, ... --rss-child) on `app`, writing
// into `flags`, which must outlive the parse. Not --check-config: that is torchscand's own.
void AddConfigFlags(CLI::App* app, ConfigFlags* flags);

}  // namespace torchscan::daemon
