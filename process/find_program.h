// Where a program is, as a shell would find it: `name` itself when it holds a slash, else the
// first executable file of that name in a folder of PATH (/usr/bin:/bin when PATH is unset).
// "" when there is none. No side effects; thread-safe.
#pragma once

#include <string>

namespace torchscan::process {

std::string FindProgram(const std::string& name);

}  // namespace torchscan::process
