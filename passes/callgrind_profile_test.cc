#include "passes/callgrind_profile.h"

#include <gtest/gtest.h>

namespace torchscan::passes {
namespace {

// A dump as callgrind 3.19 writes one (compressed names, relative positions, a call, a
// recursive call, inlined-file switches, an event column left out at the end of a line).
constexpr char kDump[] = R"(# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 7672
cmd:  ./small
part: 2

desc: Trigger: Client Request: calls 1

positions: line
events: Ir Dr I1mr
summary: 1700 300 5

ob=(4) /usr/lib/x86_64-linux-gnu/libm.so.6
fl=(167) ./s_tanh.c
fn=(1102) tanh
56 100 0 1
-5 300
+6 200 10
cfn=(1106) __expm1_fma
calls=9 +65
* 500 100 2

fl=(168) ./s_expm1.c
fn=(1106)
145 400 100
fi=(169) ./inlined.h
-27 100
fe=(168)
+21 0 90

ob=(8) /tmp/cg/small
fl=(161) ???
fn=(1090) mid(double) const [clone .isra.0]
0 100 0 2
cob=(4)
cfi=(167)
cfn=(1102)
calls=10 56
0 1100 200 3
cfn=(1090)
calls=1 0
0 50 0 0
totals: 1700 300 5
)";

TEST(ParseCallgrind, SelfAndInclusiveCostsPerFunction) {
  const absl::StatusOr<CallgrindProfile> p = ParseCallgrind(kDump);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->creator, "callgrind-3.19.0");
  EXPECT_EQ(p->trigger, "Client Request: calls 1");
  ASSERT_EQ(p->events, (std::vector<std::string>{"Ir", "Dr", "I1mr"}));
  EXPECT_EQ(p->Total("Ir"), 1700);
  EXPECT_EQ(p->Total("I1mr"), 5);
  EXPECT_EQ(p->Total("D1mr"), 0);  // not simulated
  ASSERT_EQ(p->functions.size(), 3u);
  const CallgrindFunction& tanh = p->functions[0];
  EXPECT_EQ(tanh.name, "tanh");
  EXPECT_EQ(tanh.self, (std::vector<int64_t>{600, 10, 1}));
  EXPECT_EQ(tanh.inclusive, (std::vector<int64_t>{1100, 110, 3}));
  const CallgrindFunction& expm1 = p->functions[1];
  EXPECT_EQ(expm1.name, "__expm1_fma");                        // named by its id at the call, defined there
  EXPECT_EQ(expm1.self, (std::vector<int64_t>{500, 190, 0}));  // the inlined file's line counts as its own
  const CallgrindFunction& mid = p->functions[2];
  EXPECT_EQ(mid.self[0], 100);
  EXPECT_EQ(mid.inclusive[0], 1200);  // its call to tanh; the recursive call is already its own
}

TEST(ParseCallgrind, PlainNamesAndTwoPositions) {
  const absl::StatusOr<CallgrindProfile> p = ParseCallgrind(
      "positions: instr line\nevents: Ir\nfn=main\n0x401000 12 7\n+3 1 5\ncfn=f\ncalls=2 0x401100 3\n* * 40\n");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->functions.size(), 1u);
  EXPECT_EQ(p->functions[0].self[0], 12);
  EXPECT_EQ(p->functions[0].inclusive[0], 52);
  EXPECT_EQ(p->Total("Ir"), 12);  // no summary line: the summed self costs
}

TEST(ParseCallgrind, RefusesWhatIsNoDump) {
  EXPECT_EQ(ParseCallgrind("hello\n").status().message(),
            "callgrind output, line 2: no `events:` line: not a callgrind dump");
  EXPECT_EQ(ParseCallgrind("fn=f\n1 2\n").status().message(),
            "callgrind output, line 2: a cost line before the `events:` line");
  EXPECT_EQ(ParseCallgrind("events: Ir\nfn=(3)\n").status().message(),
            "callgrind output, line 2: fn= names an undefined id");
  EXPECT_EQ(ParseCallgrind("events: Ir\nfn=f\n1 x\n").status().message(),
            "callgrind output, line 3: not a cost line: \"1 x\"");
  EXPECT_EQ(ParseCallgrind("events: Ir\n1 2\n").status().message(),
            "callgrind output, line 2: a cost line before any `fn=` line");
}

TEST(ShortFunctionName, DropsParametersQualifiersAndMarks) {
  EXPECT_EQ(ShortFunctionName("ns::f(int, char const*) const [clone .isra.0]'2"), "ns::f");
  EXPECT_EQ(ShortFunctionName("at::native::(anonymous namespace)::addmm_impl_cpu_(at::Tensor&, at::Tensor const&)"),
            "at::native::(anonymous namespace)::addmm_impl_cpu_");
  EXPECT_EQ(ShortFunctionName("std::_Function_handler<void (), main::{lambda()#1}>::_M_invoke(std::_Any_data const&)"),
            "std::_Function_handler<void (), main::{lambda()#1}>::_M_invoke");
  EXPECT_EQ(ShortFunctionName("void f<(anonymous namespace)::X>(int (*)(int))"), "void f<(anonymous namespace)::X>");
  EXPECT_EQ(ShortFunctionName("(below main)"), "(below main)");
  EXPECT_EQ(ShortFunctionName("0x000000000001ab70"), "0x000000000001ab70");
  EXPECT_EQ(ShortFunctionName("Sleef_tanhf8_u10avx2"), "Sleef_tanhf8_u10avx2");
}

}  // namespace
}  // namespace torchscan::passes
