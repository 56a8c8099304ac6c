#include "report/html_page.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "report/escaping.h"

namespace torchscan::report {
namespace {

constexpr const char* kStyle = R"css(
:root{--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--soft:#eaeef2;--bg:#f6f8fa;--ok:#1a7f37;--no:#cf222e;--hm:#bf8700}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif}
main{max-width:1180px;margin:0 auto;padding:24px 20px 40px}
header h1{font-size:26px;line-height:1.25;margin:2px 0 4px;overflow-wrap:anywhere}
.kicker{text-transform:uppercase;letter-spacing:.06em;font-size:12px;color:var(--muted);margin:0}
.meta{color:var(--muted);margin:0 0 16px}
.verdict-sentence{font-size:19px;font-weight:600;margin:0 0 16px;overflow-wrap:anywhere}
.banner{border:2px solid;border-radius:8px;padding:14px 18px;margin:0 0 16px;font-size:15px;overflow-wrap:anywhere}
.banner strong{display:block;font-size:21px;margin-bottom:4px}
.banner.fail{background:#ffebe9;border-color:var(--no);color:#82071e}
.banner.warn{background:#fff8c5;border-color:var(--hm);color:#633c01}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(230px,1fr));gap:12px;margin:0 0 16px}
.card{background:#fff;border:1px solid var(--line);border-left:6px solid var(--line);border-radius:8px;padding:10px 14px}
.card.ok{border-left-color:var(--ok)}.card.no{border-left-color:var(--no)}.card.hm{border-left-color:var(--hm)}
.card .k{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}
.card .v{font-size:22px;font-weight:600;font-variant-numeric:tabular-nums;overflow-wrap:anywhere}
.card.ok .v{color:var(--ok)}.card.no .v{color:var(--no)}
.card .s{font-size:13px;color:var(--muted);overflow-wrap:anywhere}
section{background:#fff;border:1px solid var(--line);border-radius:8px;padding:14px 20px;margin:0 0 16px;overflow-x:auto}
h2{font-size:18px;margin:0 0 8px}h3{font-size:15px;margin:14px 0 4px}
table{border-collapse:collapse;width:100%;margin:4px 0 8px;font-size:13px}
th,td{padding:4px 10px;border-bottom:1px solid var(--soft);text-align:left;vertical-align:top;overflow-wrap:anywhere}
td>code:first-child{white-space:nowrap}
thead th{border-bottom:2px solid var(--line);background:var(--bg);font-weight:600}
tbody th{font-weight:500;color:var(--muted);width:26%}
table.runs{table-layout:fixed}
.n,table.blocks td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.blocks{width:auto;min-width:460px}
table.numbers{width:auto;min-width:62%}table.numbers thead th{text-align:right}table.numbers thead th:first-child{text-align:left}
.detail{font-size:12px;color:var(--muted)}
tr.differs td{background:#fff8c5}
tr.unknown td{color:var(--muted)}
.badge{display:inline-block;padding:0 7px;border:1px solid;border-radius:10px;font-size:12px;white-space:nowrap}
.badge.warn{color:#7d4e00;border-color:var(--hm);background:#fff8c5}
.muted,.shapes{color:var(--muted)}.shapes{font-size:12px}
.tag{display:inline-block;background:var(--soft);border-radius:4px;padding:0 6px;font-size:12px}
ul.diag{margin:2px 0;padding-left:18px;font-size:12px;color:#7d4e00}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;margin:4px 0}
details{margin:6px 0}summary{cursor:pointer;color:#0969da;font-weight:600}
figure{margin:12px 0 4px}svg{display:block;width:100%;height:auto}figcaption{font-size:12px;color:var(--muted)}
figure.paired svg{max-width:720px}
.withheld{font-weight:600;color:#82071e}
footer{color:var(--muted);font-size:12px;text-align:center}
)css";

}  // namespace

std::string HtmlStyleScopedTo(std::string_view root_class) {
  const std::string root = "." + std::string(root_class);
  std::string out;
  for (absl::string_view rule : absl::StrSplit(absl::string_view(kStyle), '}', absl::SkipWhitespace())) {
    const size_t brace = rule.find('{');
    if (brace == absl::string_view::npos) continue;
    std::vector<std::string> selectors;
    for (absl::string_view sel : absl::StrSplit(rule.substr(0, brace), ',')) {
      sel = absl::StripAsciiWhitespace(sel);
      selectors.push_back(sel == ":root" || sel == "body" || sel == "main" ? root : absl::StrCat(root, " ", sel));
    }
    absl::StrAppend(&out, absl::StrJoin(selectors, ","), rule.substr(brace), "}\n");
  }
  return out;
}

void AppendHtmlPageStart(std::string_view title, std::string_view extra_style, std::string* out) {
  absl::StrAppend(
      out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "img-src data:\">",
      "<title>", HtmlEscape(title), "</title><style>", kStyle);
  out->append(extra_style);
  out->append("</style></head><body><main>");
}

}  // namespace torchscan::report
