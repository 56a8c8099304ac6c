#include "spec/printable_text.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "proto/report.pb.h"
#include "proto/service.pb.h"

namespace torchscan::spec {
namespace {

using namespace std::string_literals;

v1::JobSpec Measure() {
  v1::JobSpec spec;
  spec.mutable_measure()->mutable_workload()->mutable_model()->set_builtin(v1::ModelSpec::linear);
  return spec;
}

void ExpectRefused(const google::protobuf::Message& message, const std::string& prefix, const std::string& expected) {
  const absl::Status s = RequirePrintableText(message, prefix);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_EQ(s.message().rfind(expected, 0), 0u) << "expected a message starting with " << expected << "\ngot " << s;
}

TEST(PrintableText, PrintableUnicodeAndBinaryBytesPass) {
  v1::JobSpec spec = Measure();
  spec.set_label("résumé 日本 🚀 \"quotes\" \\ 100% <b>");
  spec.mutable_measure()->mutable_workload()->mutable_model()->mutable_torchscript()->set_module_bytes("\0\x1b\x7f"s);
  EXPECT_TRUE(RequirePrintableText(spec, "spec").ok());
  EXPECT_TRUE(RequirePrintableText(v1::JobSpec(), "spec").ok());
}

TEST(PrintableText, EachControlCharacterIsRefusedWithItsCodePointAndByte) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"a\0b"s, "U+0000 at byte 1"},
      {"\x1b[31mred", "U+001B at byte 0"},
      {"tab\there", "U+0009 at byte 3"},
      {"two\nlines", "U+000A at byte 3"},
      {"del\x7f", "U+007F at byte 3"},
      {"é\xC2\x9B"
       "2J",
       "U+009B at byte 2"},
  };
  for (const auto& [label, where] : cases) {
    v1::JobSpec spec = Measure();
    spec.set_label(label);
    ExpectRefused(spec, "spec", "spec.label: holds control character " + where);
  }
}

TEST(PrintableText, TextUpToTheLimitPassesAndOneByteMoreIsRefusedNamingTheField) {
  v1::JobSpec spec = Measure();
  spec.set_label(std::string(kMaxJobTextBytes, 'x'));
  EXPECT_TRUE(RequirePrintableText(spec, "spec").ok());
  spec.set_label(std::string(kMaxJobTextBytes + 1, 'x'));
  ExpectRefused(spec, "spec", "spec.label: holds 4097 bytes, more than the 4096 a text field of a job may hold");
  spec.set_label("short");
  (*spec.mutable_measure()->mutable_workload()->mutable_input_metadata())["commit"] = std::string(5000, 'c');
  ExpectRefused(spec, "spec", "spec.measure.workload.input_metadata[\"commit\"]: holds 5000 bytes");
}

TEST(PrintableText, NestedRepeatedAndOneofFieldsAreNamed) {
  v1::JobSpec spec;
  v1::WorkloadSpec* candidate = spec.mutable_compare()->mutable_candidate();
  candidate->add_inputs()->set_name("ok");
  candidate->add_inputs()->set_name("bad\r");
  ExpectRefused(spec, "spec", "spec.compare.candidate.inputs[1].name: holds control character U+000D");

  v1::JobSpec path = Measure();
  path.mutable_measure()->mutable_workload()->mutable_model()->mutable_torchscript()->set_path("m\0.pt"s);
  ExpectRefused(path, "spec", "spec.measure.workload.model.torchscript.path: holds control character U+0000");

  v1::JobSpec check;
  check.mutable_compare()->mutable_check()->mutable_torchscript()->set_method("check\x01");
  ExpectRefused(check, "", "compare.check.torchscript.method: holds control character U+0001");
}

TEST(PrintableText, MapKeysAndValuesAreNamedByTheirKey) {
  v1::BenchmarkReport report;
  (*report.mutable_workload())["model"] = "linear\x1b";
  ExpectRefused(report, "report", "report.workload[\"model\"]: holds control character U+001B at byte 6");

  v1::BenchmarkReport bad_key;
  (*bad_key.mutable_workload())["mo\0del"s] = "linear";
  ExpectRefused(bad_key, "report", "report.workload: a key holds control character U+0000 at byte 2");
}

}  // namespace
TEST(PrintableLine, KeepsPrintableUnicodeAndSpellsOutEverythingElse) {
  EXPECT_EQ(PrintableLine("timing baseline \xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80", 100),
            "timing baseline \xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80");
  EXPECT_EQ(PrintableLine("AssertionError: boom\xFF", 100), "AssertionError: boom\\xFF");
  EXPECT_EQ(PrintableLine("\x1B]0;TITLE\x07\x1B[31mred", 100), "\\x1B]0;TITLE\\x07\\x1B[31mred");
  EXPECT_EQ(PrintableLine(std::string("a\nb\tc\0d\x7F", 8), 100), "a\\x0Ab\\x09c\\x00d\\x7F");
  EXPECT_EQ(PrintableLine("next\xC2\x85line", 100), "next\\u0085line");       // C1 NEL
  EXPECT_EQ(PrintableLine("\xC0\xAF", 100), "\\xC0\\xAF");                    // overlong '/'
  EXPECT_EQ(PrintableLine("\xED\xA0\x80", 100), "\\xED\\xA0\\x80");           // a surrogate
  EXPECT_EQ(PrintableLine("\xF4\x90\x80\x80", 100), "\\xF4\\x90\\x80\\x80");  // above U+10FFFF
  EXPECT_EQ(PrintableLine("cut \xE4\xB8", 100), "cut \\xE4\\xB8");            // a truncated sequence
}

TEST(PrintableLine, LongTextIsCutAtACharacterBoundaryWithinTheLimit) {
  EXPECT_EQ(PrintableLine("abcdefgh", 8), "abcdefgh");
  EXPECT_EQ(PrintableLine("abcdefghi", 8), "abcde...");
  EXPECT_EQ(PrintableLine("abcd\xE4\xB8\xADxyz", 8), "abcd...");  // the 3-byte character is not split
  EXPECT_EQ(PrintableLine("ab\xFF"
                          "cdefg",
                          8),
            "ab...");  // nor is an escape
  EXPECT_EQ(PrintableLine(std::string(100000, 'x'), 200).size(), 200u);
}

}  // namespace torchscan::spec
