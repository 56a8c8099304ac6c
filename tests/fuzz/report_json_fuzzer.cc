// Fuzz target: the report / comparison JSON loaders of report/report_json.h, as `torchscan-client
// render` and `compare-reports` use them on a user's file.
//
// Properties checked for every input (FuzzFail aborts when one breaks):
//  - ParseReport and ParseComparison return, and each error is InvalidArgument naming the
//    source; no input is both a valid report and a valid comparison.
//  - LoadEvidence on the same bytes as a file agrees with them: it loads the one that is
//    valid, or fails with InvalidArgument naming the path.
//  - A valid report or comparison renders in every format of report/render_by_format.h
//    (terminal with and without colour) to a non-empty output. Renderer::Accepts refuses
//    only a comparison whose numbers are withheld (FailedPrecondition with a message), and
//    the gbench format refuses every such comparison.
//  - Saving it (ToJson, as SaveJson writes) and loading that again gives the same message.
// Verdict: kAccepted when the input is a valid report or comparison.
#include <string>
#include <string_view>
#include <variant>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "io/proto_json.h"
#include "report/evidence_view.h"
#include "report/render_by_format.h"
#include "report/report_json.h"
#include "tests/fuzz/fuzz_target.h"

namespace torchscan::fuzz {
namespace {

constexpr char kSource[] = "fuzz.json";

void ExpectRendersEverywhere(const report::Evidence& evidence) {
  const v1::Comparison* comparison = report::ComparisonOf(evidence);
  const bool withheld = comparison != nullptr && report::WithheldBecause(*comparison) != report::Withheld::kNone;
  for (const std::string& format : report::RenderFormats()) {
    for (const bool color : {false, true}) {
      if (color && format != "terminal") continue;  // only the terminal format has colours
      absl::StatusOr<std::unique_ptr<report::Renderer>> renderer =
          report::RenderByFormat(format, report::RenderOptions{color});
      if (!renderer.ok()) FuzzFail("RenderByFormat refused one of RenderFormats()", renderer.status().ToString());
      const absl::Status accepts = (*renderer)->Accepts(evidence);
      if (!accepts.ok() &&
          (!withheld || accepts.code() != absl::StatusCode::kFailedPrecondition || accepts.message().empty()))
        FuzzFail(absl::StrCat("the ", format, " format refused evidence whose numbers stand, or without saying why"),
                 accepts.ToString());
      if (accepts.ok() && withheld && format == "gbench")
        FuzzFail("the gbench format accepted a comparison whose numbers are withheld");
      if ((*renderer)->Render(evidence).empty())
        FuzzFail(absl::StrCat("the ", format, color ? " (colour)" : "", " rendering is empty"));
    }
  }
}

// `loaded` is a valid T: it must be what LoadEvidence loads, render, and survive a save.
template <typename T>
void ExpectUsable(const T& loaded, const absl::StatusOr<report::Evidence>& evidence,
                  absl::StatusOr<T> (*parse)(std::string_view, const std::string&)) {
  const std::string name = T::descriptor()->name();
  if (!evidence.ok()) FuzzFail(absl::StrCat("LoadEvidence refused a valid ", name), evidence.status().ToString());
  if (!std::holds_alternative<T>(*evidence))
    FuzzFail(absl::StrCat("LoadEvidence loaded a valid ", name, " as the other kind"));
  ExpectSameMessage(loaded, std::get<T>(*evidence), "LoadEvidence");
  ExpectRendersEverywhere(*evidence);
  absl::StatusOr<T> reloaded = parse(ToJson(loaded), "saved.json");
  if (!reloaded.ok()) FuzzFail(absl::StrCat("a saved ", name, " does not load"), reloaded.status().ToString());
  ExpectSameMessage(loaded, *reloaded, absl::StrCat("saving and loading a ", name));
}

}  // namespace

Verdict FuzzOne(std::string_view input) {
  const absl::StatusOr<v1::BenchmarkReport> report = report::ParseReport(input, kSource);
  const absl::StatusOr<v1::Comparison> comparison = report::ParseComparison(input, kSource);
  const std::string source_prefix = absl::StrCat(kSource, ": ");
  if (!report.ok()) ExpectError(report.status(), absl::StatusCode::kInvalidArgument, source_prefix, "ParseReport");
  if (!comparison.ok())
    ExpectError(comparison.status(), absl::StatusCode::kInvalidArgument, source_prefix, "ParseComparison");
  if (report.ok() && comparison.ok()) FuzzFail("the input is both a valid report and a valid comparison");

  InputFile& file = InputFile::Get();
  file.Write(input);
  const absl::StatusOr<report::Evidence> evidence = report::LoadEvidence(file.path());
  if (report.ok()) {
    ExpectUsable<v1::BenchmarkReport>(*report, evidence, &report::ParseReport);
  } else if (comparison.ok()) {
    ExpectUsable<v1::Comparison>(*comparison, evidence, &report::ParseComparison);
  } else {
    ExpectError(evidence.status(), absl::StatusCode::kInvalidArgument, absl::StrCat(file.path(), ": "),
                "LoadEvidence of an invalid file");
    return Verdict::kRejected;
  }
  return Verdict::kAccepted;
}

}  // namespace torchscan::fuzz
