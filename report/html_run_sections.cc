#include "report/html_run_sections.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/number_format.h"
#include "report/escaping.h"
#include "report/load_text.h"
#include "report/timing_plot.h"

namespace torchscan::report {
namespace {

constexpr int kTopOperators = 15;

std::string RunLabel(const RunView& run) {
  return run.role == "report" ? run.name : absl::StrCat(run.role, ": ", run.name);
}

struct Row {
  std::string key;
  std::vector<std::string> values;  // one per run, display text (not yet escaped)
  bool numeric = false;
};

// A value cell; long or multi-line text folds into a <details>.
std::string ValueCell(const std::string& value, bool numeric) {
  if (value.find('\n') == std::string::npos && value.size() <= 160) return numeric ? TdNum(value) : Td(value);
  const size_t lines = std::count(value.begin(), value.end(), '\n') + 1;
  return absl::StrCat("<td><details><summary>", lines, lines == 1 ? " line" : " lines", "</summary><pre>",
                      HtmlEscape(value), "</pre></details></td>");
}

// A table with one column per run. In a table of facts (not numbers) rows whose values differ
// between runs are marked.
void RunTable(const std::vector<RunView>& runs, const std::string& first, const std::vector<Row>& rows,
              std::string* out, bool numbers = false) {
  absl::StrAppend(out, "<table class=\"", numbers ? "numbers" : "runs", "\"><thead><tr><th>", HtmlEscape(first),
                  "</th>");
  for (const RunView& run : runs) absl::StrAppend(out, "<th>", HtmlEscape(RunLabel(run)), "</th>");
  out->append("</tr></thead><tbody>");
  for (const Row& row : rows) {
    const bool differs =
        !numbers && row.values.size() > 1 &&
        std::any_of(row.values.begin(), row.values.end(), [&](const auto& v) { return v != row.values[0]; });
    absl::StrAppend(out, differs ? "<tr class=\"differs\">" : "<tr>", "<th>", HtmlEscape(row.key), "</th>");
    for (const std::string& v : row.values) out->append(ValueCell(v, row.numeric));
    out->append("</tr>");
  }
  out->append("</tbody></table>");
}

// An <h3> and its run table, or a sentence when there are no rows.
void Subsection(const std::vector<RunView>& runs, const char* title, const char* first, const std::vector<Row>& rows,
                const char* when_empty, std::string* out) {
  absl::StrAppend(out, "<h3>", title, "</h3>");
  if (rows.empty()) {
    absl::StrAppend(out, "<p>", when_empty, "</p>");
  } else {
    RunTable(runs, first, rows, out);
  }
}

// Rows for the fields of a message reached by `get` in every run, keys prefixed.
template <typename Get>
void AddFieldRows(const std::vector<RunView>& runs, const std::string& prefix, Get get, std::vector<Row>* rows) {
  std::vector<std::vector<std::pair<std::string, std::string>>> fields;
  for (const RunView& run : runs) fields.push_back(FieldTexts(get(*run.report)));
  for (size_t i = 0; i < fields[0].size(); ++i) {
    Row row{prefix + fields[0][i].first, {}, false};
    for (const auto& f : fields) row.values.push_back(f[i].second);
    rows->push_back(std::move(row));
  }
}

// Rows for a string map in every run: the union of keys, sorted; "(absent)" where missing.
template <typename Get>
void AddMapRows(const std::vector<RunView>& runs, const std::string& prefix, Get get, std::vector<Row>* rows) {
  std::set<std::string> keys;
  for (const RunView& run : runs)
    for (const auto& [k, v] : get(*run.report)) keys.insert(k);
  for (const std::string& key : keys) {
    Row row{prefix + key, {}, false};
    for (const RunView& run : runs) {
      const auto& map = get(*run.report);
      const auto it = map.find(key);
      row.values.push_back(it == map.end() ? "(absent)" : it->second);
    }
    rows->push_back(std::move(row));
  }
}

std::string TensorText(const v1::TensorInfo& t) {
  return absl::StrCat(t.name(), ": [", absl::StrJoin(t.shape(), ", "), "] ", t.dtype(),
                      t.device().empty() ? "" : " on " + t.device());
}

std::string MetricValue(const v1::MetricResult& m) {
  return m.has_value() ? FormatMetric(m.value(), m.unit()) : "unknown";
}

std::string MetricStatus(const v1::MetricResult& m) {
  if (!m.has_value()) return "<span class=\"badge warn\">unknown</span>";
  return m.complete() ? "complete" : "<span class=\"badge warn\">lower bound</span>";
}

std::string Diagnostics(const v1::MetricResult& m) {
  if (m.diagnostics().empty()) return "";
  std::string out = "<ul class=\"diag\">";
  for (const std::string& d : m.diagnostics()) absl::StrAppend(&out, "<li>", HtmlEscape(d), "</li>");
  return out + "</ul>";
}

void OperatorRows(const std::vector<const v1::OperatorStat*>& ops, size_t begin, size_t end, std::string* out) {
  out->append(
      "<table class=\"ops\"><thead><tr><th class=\"n\">#</th><th>operator</th><th class=\"n\">calls</th>"
      "<th class=\"n\">self time</th><th class=\"n\">total time</th><th class=\"n\">FLOPs</th>"
      "<th>input shapes (calls)</th></tr></thead><tbody>");
  for (size_t i = begin; i < end; ++i) {
    const v1::OperatorStat& op = *ops[i];
    std::vector<std::string> shapes;
    for (const v1::ShapeGroup& g : op.shapes()) shapes.push_back(absl::StrCat(g.input_shapes(), " (", g.calls(), ")"));
    absl::StrAppend(out, "<tr>", TdNum(std::to_string(i + 1)), "<td><code>", HtmlEscape(op.name()), "</code></td>",
                    TdNum(FormatCount(op.calls())), TdNum(FormatSeconds(op.self_time_s())),
                    TdNum(FormatSeconds(op.total_time_s())),
                    op.has_flops() ? TdNum(FormatSi(op.flops(), "FLOP")) : "<td class=\"n muted\">no formula</td>",
                    "<td class=\"shapes\">", HtmlEscape(absl::StrJoin(shapes, "; ")), "</td></tr>");
  }
  out->append("</tbody></table>");
}

}  // namespace

std::string Td(std::string_view text) { return absl::StrCat("<td>", HtmlEscape(text), "</td>"); }
std::string TdNum(std::string_view text) { return absl::StrCat("<td class=\"n\">", HtmlEscape(text), "</td>"); }

void AppendTimingFigure(const std::vector<RunView>& runs, std::string* out) {
  if (std::all_of(runs.begin(), runs.end(), [](const RunView& r) { return r.report->timing().blocks().empty(); })) {
    out->append("<p class=\"muted\" id=\"not-timed\">No timing blocks: no run was timed (the warnings say why).</p>");
    return;
  }
  std::vector<PlotRun> plot;
  for (const RunView& run : runs) plot.push_back({RunLabel(run), &run.report->timing()});
  absl::StrAppend(out, "<figure>", TimingPlotSvg(plot),
                  "<figcaption>Each dot is one block's per-call time (duration / calls) in measurement order; "
                  "the line is the median and the band the IQR (q1 to q3); blocks far above the rest are drawn "
                  "on the top edge under a red triangle and counted.",
                  runs.size() > 1 ? " Both runs share the y axis." : "", "</figcaption></figure>");
}

void TimingSection(const std::vector<RunView>& runs, std::string* out) {
  std::vector<Row> rows;
  auto add = [&](std::string key, auto value) {
    Row row{std::move(key), {}, true};
    for (const RunView& run : runs)
      row.values.push_back(run.report->timing().blocks().empty() ? "-" : value(run.report->timing()));
    rows.push_back(std::move(row));
  };
  add("median per call", [](const v1::Timing& t) { return FormatSeconds(t.summary().median_s()); });
  add("IQR (q3 - q1)", [](const v1::Timing& t) { return FormatSeconds(t.summary().iqr_s()); });
  add("q1 to q3", [](const v1::Timing& t) {
    return absl::StrCat(FormatSeconds(t.summary().q1_s()), " to ", FormatSeconds(t.summary().q3_s()));
  });
  add("mean", [](const v1::Timing& t) { return FormatSeconds(t.summary().mean_s()); });
  add("min to max", [](const v1::Timing& t) {
    return absl::StrCat(FormatSeconds(t.summary().min_s()), " to ", FormatSeconds(t.summary().max_s()));
  });
  add("throughput", [](const v1::Timing& t) { return FormatSi(t.throughput(), t.throughput_unit()); });
  add("blocks", [](const v1::Timing& t) { return FormatCount(t.blocks_size()); });
  add("calls per block", [](const v1::Timing& t) { return FormatCount(t.calls_per_block()); });
  add("timed calls", [](const v1::Timing& t) { return FormatCount(t.summary().total_calls()); });
  add("timed total", [](const v1::Timing& t) { return FormatSeconds(t.timed_total_s()); });
  add("warm-up calls", [](const v1::Timing& t) { return FormatCount(t.warmup_calls()); });
  const bool any_load = std::any_of(
      runs.begin(), runs.end(), [](const RunView& run) { return !DescribeTimingLoad(run.report->timing()).empty(); });
  if (any_load) {  // only where sampled, so reports from before Timing.load read as they did
    Row load{"load during timing", {}, false};
    for (const RunView& run : runs) {
      const std::string text = DescribeTimingLoad(run.report->timing());
      load.values.push_back(text.empty() ? "-" : text);
    }
    rows.push_back(std::move(load));
  }
  Row work{"work per call", {}, true};
  for (const RunView& run : runs)
    work.values.push_back(FormatAmount(run.report->work_units(), run.report->work_unit()));
  rows.push_back(std::move(work));

  out->append("<section id=\"timing\"><h2>Timing</h2>");
  const bool timed =
      std::any_of(runs.begin(), runs.end(), [](const RunView& r) { return !r.report->timing().blocks().empty(); });
  if (timed) RunTable(runs, "per-call statistics", rows, out, /*numbers=*/true);
  AppendTimingFigure(runs, out);
  if (timed)
    absl::StrAppend(out,
                    "<p class=\"muted\">Quartiles: ", HtmlEscape(runs[0].report->timing().summary().quantile_method()),
                    "</p>");
  std::string warnings;
  for (const RunView& run : runs)
    for (const v1::Warning& w : run.report->warnings())
      absl::StrAppend(&warnings, "<li><span class=\"tag\">", HtmlEscape(RunLabel(run)), "</span> <code>",
                      HtmlEscape(w.code()), "</code> ", HtmlEscape(w.message()), "</li>");
  if (!warnings.empty()) absl::StrAppend(out, "<h3>Warnings</h3><ul class=\"warnings\">", warnings, "</ul>");
  out->append("</section>");
}

void MetricsSection(const std::vector<RunView>& runs, std::string* out) {
  out->append(
      "<section id=\"metrics\"><h2>Scoped metrics</h2><p class=\"muted\">Appended measurements such as memory "
      "peaks and fresh-process RSS. Each keeps its own method and scope; they are never added together.</p>");
  bool any = false;
  for (const RunView& run : runs) {
    if (run.report->totals().empty()) continue;
    any = true;
    absl::StrAppend(out, "<h3>", HtmlEscape(RunLabel(run)),
                    "</h3><table><thead><tr><th>metric</th><th class=\"n\">value</th><th>method</th><th>scope</th>"
                    "<th>status</th></tr></thead><tbody>");
    for (const v1::MetricResult& m : run.report->totals())
      absl::StrAppend(out, "<tr><td><code>", HtmlEscape(m.name()), "</code>", Diagnostics(m), "</td>",
                      TdNum(MetricValue(m)), "<td class=\"detail\">", HtmlEscape(m.method()),
                      "</td><td class=\"detail\">", HtmlEscape(m.scope()), "</td><td>", MetricStatus(m), "</td></tr>");
    out->append("</tbody></table>");
  }
  if (!any) out->append("<p>No scoped metrics were appended.</p>");
  out->append("</section>");
}

void ProfileSection(const std::vector<RunView>& runs, std::string* out) {
  if (std::none_of(runs.begin(), runs.end(), [](const RunView& r) { return r.report->has_profile(); })) return;
  out->append(
      "<section id=\"profile\"><h2>Operator profile</h2><p class=\"muted\">A diagnostic pass separate from "
      "timing. Operator times include profiler instrumentation and are not clean workload timing.</p>");
  for (const RunView& run : runs) {
    absl::StrAppend(out, "<h3>", HtmlEscape(RunLabel(run)), "</h3>");
    if (!run.report->has_profile()) {
      out->append("<p>No operator profile.</p>");
      continue;
    }
    const v1::OperatorProfile& p = run.report->profile();
    const v1::MetricResult& flops = p.flops_per_call();
    absl::StrAppend(out, "<p>FLOPs per call: <strong>", HtmlEscape(MetricValue(flops)), "</strong> ",
                    MetricStatus(flops), " &middot; profiled calls: ", HtmlEscape(FormatCount(p.profiled_calls())),
                    "</p>", Diagnostics(flops));
    if (!p.note().empty()) absl::StrAppend(out, "<p class=\"muted\">", HtmlEscape(p.note()), "</p>");
    const std::vector<const v1::OperatorStat*> ops = OperatorsBySelfTime(p);
    const size_t top = std::min<size_t>(ops.size(), kTopOperators);
    OperatorRows(ops, 0, top, out);
    if (ops.size() > top) {
      absl::StrAppend(out, "<details id=\"operators-", HtmlEscape(run.role), "\"><summary>",
                      FormatCount(ops.size() - top), " more operators, by self time</summary>");
      OperatorRows(ops, top, ops.size(), out);
      out->append("</details>");
    }
  }
  out->append("</section>");
}

void MetadataSection(const std::vector<RunView>& runs, std::string* out) {
  out->append("<section id=\"metadata\"><h2>Hardware, inputs and settings</h2>");
  std::vector<Row> env;
  AddFieldRows(
      runs, "", [](const v1::BenchmarkReport& r) -> const google::protobuf::Message& { return r.environment(); }, &env);
  Subsection(runs, "Environment", "field", env, "", out);

  std::vector<Row> inputs;
  size_t tensors = 0;
  for (const RunView& run : runs) tensors = std::max<size_t>(tensors, run.report->input_metadata().tensors_size());
  for (size_t i = 0; i < tensors; ++i) {
    Row row{absl::StrCat("tensor ", i + 1), {}, false};
    for (const RunView& run : runs) {
      const auto& t = run.report->input_metadata().tensors();
      row.values.push_back(i < static_cast<size_t>(t.size()) ? TensorText(t[i]) : "(absent)");
    }
    inputs.push_back(std::move(row));
  }
  AddMapRows(
      runs, "", [](const v1::BenchmarkReport& r) -> const auto& { return r.input_metadata().fields(); }, &inputs);
  Subsection(runs, "Input metadata", "input", inputs, "No input metadata was recorded.", out);

  std::vector<Row> workload;
  AddMapRows(
      runs, "", [](const v1::BenchmarkReport& r) -> const auto& { return r.workload(); }, &workload);
  Subsection(runs, "Workload", "key", workload, "No workload description was recorded.", out);

  std::vector<Row> settings;
  Row device{"device", {}, false}, excluded{"excluded from timing", {}, false}, order{"order", {}, false};
  for (const RunView& run : runs) {
    const v1::Settings& s = run.report->settings();
    device.values.push_back(s.device());
    excluded.values.push_back(absl::StrJoin(s.excluded_from_timing(), "; "));
    order.values.push_back(s.order());
  }
  settings.push_back(std::move(device));
  AddFieldRows(
      runs, "threads.",
      [](const v1::BenchmarkReport& r) -> const google::protobuf::Message& { return r.settings().threads(); },
      &settings);
  AddFieldRows(
      runs, "timing.",
      [](const v1::BenchmarkReport& r) -> const google::protobuf::Message& { return r.settings().timing(); },
      &settings);
  settings.push_back(std::move(excluded));
  settings.push_back(std::move(order));
  Subsection(runs, "Settings", "setting", settings, "", out);
  out->append("</section>");
}

void RawBlocksSection(const std::vector<RunView>& runs, std::string* out) {
  out->append("<section id=\"blocks\"><h2>Raw timing blocks</h2>");
  for (const RunView& run : runs) {
    const auto& blocks = run.report->timing().blocks();
    absl::StrAppend(out, "<details id=\"raw-blocks-", HtmlEscape(run.role), "\"><summary>", HtmlEscape(RunLabel(run)),
                    ": ", FormatCount(blocks.size()), blocks.size() == 1 ? " block" : " blocks",
                    "</summary><table class=\"blocks\"><thead><tr><th class=\"n\">block</th><th class=\"n\">calls</th>"
                    "<th class=\"n\">duration</th><th class=\"n\">per call</th></tr></thead><tbody>\n");
    // End tags of rows and cells are optional in HTML; leaving them out keeps 10,000 rows small.
    int index = 0;
    for (const v1::TimingBlock& b : blocks)
      absl::StrAppend(out, "<tr><td>", ++index, "<td>", FormatCount(b.calls()), "<td>", FormatSeconds(b.duration_s()),
                      "<td>", FormatSeconds(PerCallSeconds(b)), "\n");
    out->append("</tbody></table></details>");
  }
  out->append("</section>");
}

}  // namespace torchscan::report
