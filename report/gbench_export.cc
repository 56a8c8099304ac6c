#include "report/gbench_export.h"

#include <algorithm>

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/evidence_view.h"
#include "report/verdict_sentence.h"

namespace torchscan::report {
namespace {

// `summary`: a comparison's verdict sentence, "" for a report.
std::string Context(const v1::BenchmarkReport& r, const std::string& created_at, const std::string& summary) {
  const v1::Environment& e = r.environment();
  std::vector<std::string> loads;
  if (e.has_load_average_1m()) loads.push_back(ShortestDouble(e.load_average_1m()));
  if (e.has_load_average_5m()) loads.push_back(ShortestDouble(e.load_average_5m()));
  if (e.has_load_average_15m()) loads.push_back(ShortestDouble(e.load_average_15m()));
  const bool scaling = !e.cpu_governor().empty() && e.cpu_governor() != "performance" && e.cpu_governor() != "unknown";
  return absl::StrCat(
      "  \"context\": {\n    \"date\": ", JsonString(created_at), ",\n    \"host_name\": ", JsonString(e.hostname()),
      ",\n    \"executable\": \"torchscan\",\n    \"num_cpus\": ", e.has_logical_cores() ? e.logical_cores() : 0,
      ",\n    \"mhz_per_cpu\": 0,\n    \"cpu_scaling_enabled\": ", scaling ? "true" : "false",
      ",\n    \"caches\": [],\n    \"load_avg\": [", absl::StrJoin(loads, ", "),
      "],\n    \"library_build_type\": ", e.build_type() == "optimized" ? "\"release\"" : "\"debug\"",
      ",\n    \"torchscan_schema_version\": ", r.schema_version(),
      ",\n    \"torchscan_device\": ", JsonString(r.settings().device()),
      ",\n    \"torchscan_intra_op_threads\": ", r.settings().threads().intra_op(),
      ",\n    \"torchscan_timing_rounds\": ", std::max(1, r.settings().timing().rounds()),
      summary.empty() ? "" : ",\n    \"torchscan_summary\": " + JsonString(summary), "\n  },\n");
}

}  // namespace

absl::Status GbenchExporter::Accepts(const Evidence& evidence) const {
  const v1::Comparison* c = ComparisonOf(evidence);
  if (c == nullptr || WithheldBecause(*c) == Withheld::kNone) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "Google Benchmark JSON of this comparison is refused because ", WithheldDetail(*c),
      ": TorchScan withholds its deltas and speed label, and compare.py would compute them from the two runs' "
      "blocks. The per-run reports can be exported one by one, each as a plain report"));
}

std::string GbenchExporter::Render(const Evidence& evidence) const {
  const std::vector<RunView> runs = Runs(evidence);
  const std::vector<std::string> names = ExportNames(evidence);
  const v1::Comparison* c = ComparisonOf(evidence);
  std::string out = "{\n";
  out += Context(*runs[0].report, c ? c->created_at() : runs[0].report->created_at(), c ? VerdictSentence(*c) : "");
  out += "  \"benchmarks\": [";
  bool first = true;
  const size_t exported = Accepts(evidence).ok() ? runs.size() : 0;  // nothing of a refused comparison
  for (size_t r = 0; r < exported; ++r) {
    const auto& blocks = runs[r].report->timing().blocks();
    const std::string name = JsonString(names[r]);
    for (int i = 0; i < blocks.size(); ++i) {
      const double per_call_ns = PerCallSeconds(blocks[i]) * 1e9;
      if (!std::isfinite(per_call_ns)) continue;
      const std::string time = ShortestDouble(per_call_ns);
      absl::StrAppend(&out, first ? "\n" : ",\n", "    {\"name\": ", name, ", \"family_index\": ", r,
                      ", \"per_family_instance_index\": 0, \"run_name\": ", name,
                      ", \"run_type\": \"iteration\", \"repetitions\": ", blocks.size(), ", \"repetition_index\": ", i,
                      ", \"threads\": 1, \"iterations\": ", blocks[i].calls(), ", \"real_time\": ", time,
                      ", \"cpu_time\": ", time, ", \"time_unit\": \"ns\"}");
      first = false;
    }
  }
  out += first ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

}  // namespace torchscan::report
