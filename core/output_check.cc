#include "core/output_check.h"

namespace torchscan {

v1::OutputCheck RunOutputCheck(const CheckFn& check) {
  v1::OutputCheck result;
  if (!check) {
    result.set_status(v1::OutputCheck::not_provided);
    result.set_message("no output check was run: correctness is unverified");
    return result;
  }
  try {
    const std::optional<bool> outcome = check();
    if (!outcome.has_value() || *outcome) {
      result.set_status(v1::OutputCheck::passed);
      result.set_message(outcome.has_value() ? "check returned true" : "check returned nothing");
    } else {
      result.set_status(v1::OutputCheck::failed);
      result.set_message("check returned false");
    }
  } catch (const AssertionError& e) {
    result.set_status(v1::OutputCheck::failed);
    result.set_message(e.what());
  }
  return result;
}

}  // namespace torchscan
