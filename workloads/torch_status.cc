#include "workloads/torch_status.h"

#include <exception>
#include <string>

#include <c10/util/Exception.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "libtorch_build_info.h"

namespace torchscan::workloads {
namespace {

bool LooksLikeOutOfMemory(absl::string_view message) {
  return absl::StrContains(message, "can't allocate memory") || absl::StrContains(message, "not enough memory") ||
         absl::StrContains(absl::AsciiStrToLower(message), "out of memory");
}

constexpr absl::string_view kInterpreterHeader = "The following operation failed in the TorchScript interpreter.";

// The number after `marker` in `text`, or -1.
int64_t NumberAfter(absl::string_view text, absl::string_view marker) {
  const size_t at = text.find(marker);
  if (at == absl::string_view::npos) return -1;
  absl::string_view rest = text.substr(at + marker.size());
  const size_t end = rest.find_first_not_of("0123456789");
  int64_t n = -1;
  return absl::SimpleAtoi(rest.substr(0, end), &n) ? n : -1;
}

// LibTorch's refusal of a module file from a newer PyTorch ("Attempted to read a PyTorch file
// with version 99, but the maximum supported version for reading is 10 ... please upgrade
// PyTorch"), or of an operator it does not know, rewritten to name this LibTorch and the fix.
// `text` unchanged when it is neither.
std::string ExplainNewerPyTorch(const std::string& text) {
  const int64_t version = NumberAfter(text, "Attempted to read a PyTorch file with version ");
  const int64_t readable = NumberAfter(text, "maximum supported version for reading is ");
  if (version >= 0 && readable >= 0) {
    return absl::StrCat("the file was saved by a newer PyTorch (file format version ", version,
                        ") than this daemon's LibTorch " TORCHSCAN_LIBTORCH_VERSION " reads (up to version ", readable,
                        "): save it with PyTorch " TORCHSCAN_LIBTORCH_VERSION
                        " (the project environment's, /opt/torchscan/venv), or use a TorchScan built against a "
                        "newer LibTorch (TORCHSCAN_LIBTORCH)");
  }
  if (absl::StrContains(text, "Unknown builtin op")) {
    return absl::StrCat(text, " (this daemon's LibTorch is " TORCHSCAN_LIBTORCH_VERSION
                              "; a module saved by a newer PyTorch may call operators it lacks: save it with "
                              "PyTorch " TORCHSCAN_LIBTORCH_VERSION ")");
  }
  return text;
}

// A LibTorch internal assert ("isGenericDict() INTERNAL ASSERT FAILED at \"...ivalue_inl.h\":1931,
// please report a bug to PyTorch. Expected GenericDict but got Object") says to report a
// PyTorch bug; here it means an input LibTorch did not expect (a state_dict where one tensor
// was expected), so it is told as that: "LibTorch could not use it (its check isGenericDict()
// failed: Expected GenericDict but got Object)". `text` unchanged when it is none.
std::string ExplainInternalAssert(const std::string& text) {
  const size_t at = text.find(" INTERNAL ASSERT FAILED");
  if (at == std::string::npos) return text;
  const size_t start = text.rfind(": ", at);
  const std::string condition(absl::StripAsciiWhitespace(absl::string_view(text).substr(
      start == std::string::npos ? 0 : start + 2, at - (start == std::string::npos ? 0 : start + 2))));
  const std::string report_bug = "please report a bug to PyTorch.";
  const size_t report = text.find(report_bug, at);
  const std::string detail(report == std::string::npos ? ""
                                                       : absl::StripAsciiWhitespace(absl::string_view(text).substr(
                                                             report + report_bug.size())));
  return absl::StrCat(start == std::string::npos ? "" : text.substr(0, start + 2),
                      "LibTorch could not use it (its check ", condition, " failed",
                      detail.empty() ? "" : ": " + detail, ")");
}

// Whether `line` opens a Python-style error: "RuntimeError: ...", "AssertionError: ...",
// "torch.jit.Error: ..." (a name ending in Error or Exception, then a colon).
bool OpensAnError(absl::string_view line) {
  const size_t colon = line.find(':');
  if (colon == absl::string_view::npos || colon == 0) return false;
  const absl::string_view name = line.substr(0, colon);
  for (char c : name)
    if (!(absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return absl::EndsWith(name, "Error") || absl::EndsWith(name, "Exception");
}

// One line: a TorchScript interpreter error without its traceback (code excerpts, indented or
// not, under "Traceback of TorchScript ..." headings), keeping the error itself from its last
// "SomethingError:" line on ("RuntimeError: mat1 and mat2 shapes cannot be multiplied ...");
// the lines of any other message joined by " ". Daemons show a worker's last stderr line, so a
// message must not spread over several.
std::string OneLine(absl::string_view message) {
  std::vector<absl::string_view> lines = absl::StrSplit(message, '\n');
  size_t first = 0;
  if (absl::StartsWith(message, kInterpreterHeader)) {
    for (size_t i = lines.size(); i-- > 0;) {
      if (OpensAnError(lines[i])) {
        first = i;
        break;
      }
    }
  }
  std::vector<std::string> kept;
  for (size_t i = first; i < lines.size(); ++i) {
    const absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
    if (line.empty() || line == kInterpreterHeader || absl::StartsWith(line, "Traceback of TorchScript")) continue;
    if (first == 0 && absl::StartsWith(message, kInterpreterHeader) && absl::ascii_isspace(lines[i][0])) continue;
    kept.emplace_back(line);
  }
  return absl::StrJoin(kept, " ");
}

absl::Status Mapped(absl::string_view what, absl::string_view message, bool out_of_memory,
                    absl::StatusCode error_code) {
  const std::string text = ExplainInternalAssert(ExplainNewerPyTorch(OneLine(message)));
  if (out_of_memory || LooksLikeOutOfMemory(text)) {
    return absl::ResourceExhaustedError(absl::StrCat(what, ": out of memory: ", text));
  }
  return absl::Status(error_code, absl::StrCat(what, ": ", text));
}

}  // namespace

absl::Status RunTorch(absl::string_view what, const std::function<void()>& fn, absl::StatusCode error_code) {
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
