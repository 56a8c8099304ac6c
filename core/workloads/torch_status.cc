#include "core/workloads/torch_status.h"

#include <exception>
#include <string>

#include <c10/util/Exception.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace torchscan::workloads {
namespace {

bool LooksLikeOutOfMemory(absl::string_view message) {
  return absl::StrContains(message, "can't allocate memory") ||
         absl::StrContains(message, "not enough memory") ||
         absl::StrContains(absl::AsciiStrToLower(message), "out of memory");
}

absl::Status Mapped(absl::string_view what, absl::string_view message, bool out_of_memory,
                    absl::StatusCode error_code) {
  // c10 messages can end with a newline; keep the status on one logical message.
  std::string text(message);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (out_of_memory || LooksLikeOutOfMemory(text)) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": out of memory: ", text));
  }
  return absl::Status(error_code, absl::StrCat(what, ": ", text));
}

}  // namespace

absl::Status RunTorch(absl::string_view what, const std::function<void()>& fn,
                      absl::StatusCode error_code) {
  try {
    fn();
    return absl::OkStatus();
  } catch (const c10::OutOfMemoryError& e) {
    return Mapped(what, e.what_without_backtrace(), /*out_of_memory=*/true, error_code);
  } catch (const c10::Error& e) {
    return Mapped(what, e.what_without_backtrace(), /*out_of_memory=*/false, error_code);
  } catch (const std::bad_alloc&) {
    return Mapped(what, "std::bad_alloc", /*out_of_memory=*/true, error_code);
  } catch (const std::exception& e) {
    return Mapped(what, e.what(), /*out_of_memory=*/false, error_code);
  } catch (...) {
    return absl::InternalError(absl::StrCat(what, ": an unknown exception was thrown"));
  }
}

}  // namespace torchscan::workloads
