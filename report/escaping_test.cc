#include "report/escaping.h"

#include <gtest/gtest.h>

namespace torchscan::report {
namespace {

TEST(HtmlEscape, EscapesMarkupQuotesAndControls) {
  EXPECT_EQ(HtmlEscape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(HtmlEscape("a\x1b[2Jb\tc\n"), "a\xEF\xBF\xBD[2Jb\tc\n");
  EXPECT_EQ(HtmlEscape("µs é"), "µs é");
}

TEST(MarkdownEscape, NoRawHtmlNoTableBreakage) {
  EXPECT_EQ(MarkdownEscape("a|b *c* _d_ <e> & [f](g)\nh"), "a\\|b \\*c\\* \\_d\\_ &lt;e&gt; &amp; \\[f\\](g) h");
  EXPECT_EQ(MarkdownEscape("`x` # ! ~ \\"), "\\`x\\` \\# \\! \\~ \\\\");
}

TEST(CsvField, QuotesOnlyWhenNeededAndNeverAlters) {
  EXPECT_EQ(CsvField("baseline"), "baseline");
  EXPECT_EQ(CsvField("=cmd"), "=cmd");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField(" padded"), "\" padded\"");
}

TEST(JsonString, EscapesQuotesBackslashesAndControls) {
  EXPECT_EQ(JsonString("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(JsonString("µ"), "\"µ\"");
}

TEST(TerminalSafe, RemovesC0C1AndDelButKeepsUtf8) {
  EXPECT_EQ(TerminalSafe("\x1b[2J ok \xc2\x9b x \x7f é\n"), "?[2J ok ? x ? é?");
  EXPECT_EQ(DisplayWidth("µs é"), 4u);
}

TEST(Pad, CountsCodePointsAndNeverCuts) {
  EXPECT_EQ(PadRight("µs", 4), "µs  ");
  EXPECT_EQ(PadLeft("µs", 4), "  µs");
  EXPECT_EQ(PadRight("longer", 3), "longer");
}

}  // namespace
}  // namespace torchscan::report
