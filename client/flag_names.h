// Messages in the words of the command line: a daemon or worker names a JobSpec field
// ("spec.options.min_run_time_s: ...", "measurement: model.torchscript.module_bytes are not
// ..."), but a job made from flags was written with --min-run-time, --torchscript ... This
// adds the flag beside the field, keeping the field (a job file uses it). No gRPC.
#pragma once

#include <string>

namespace torchscan {

// `message` with " (--flag)" after the first mention of each JobSpec field that a flag sets:
// "spec.options.min_run_time_s: 1e+300 s is above ..." becomes
// "spec.options.min_run_time_s (--min-run-time): 1e+300 s is above ...". Fields without a
// flag, and a field already followed by its flag, are left alone.
std::string WithFlagNames(const std::string& message);

}  // namespace torchscan
