#include "report/history_points.h"

#include "gtest/gtest.h"
#include "tests/fixtures/history_fixtures.h"

namespace torchscan::report {
namespace {

namespace f = fixtures;

TEST(HistoryPoints, OnlySucceededJobsWithFiguresArePoints) {
  v1::Job zero = f::PointJob("z", "2026-01-01T00:00:00.000Z", "r", 0, "m");
  v1::Job running = f::PointJob("r", "2026-01-01T00:00:00.000Z", "r", 1e-3, "m");
  running.set_state(v1::Job::running);
  EXPECT_TRUE(IsHistoryPoint(f::PointJob("p", "", "", 1e-3, "")));
  EXPECT_FALSE(IsHistoryPoint(zero));
  EXPECT_FALSE(IsHistoryPoint(running));
  EXPECT_FALSE(IsHistoryPoint(f::NotPointJob("f", "", v1::Job::failed)));
  EXPECT_FALSE(IsHistoryPoint(f::NotPointJob("s", "", v1::Job::succeeded)));
}

TEST(HistoryPoints, ChangesAreAgainstThePreviousOlderPoint) {
  HistoryView view;
  view.jobs = {f::PointJob("c", "2026-01-03T00:00:00.000Z", "c", 150e-6, f::MachineText("openblas")),
               f::NotPointJob("x", "x", v1::Job::failed),
               f::PointJob("b", "2026-01-02T00:00:00.000Z", "b", 200e-6, f::MachineText("reference")),
               f::PointJob("a", "2026-01-01T00:00:00.000Z", "a", 100e-6, f::MachineText("reference"))};
  const HistoryRows rows = BuildHistoryRows(view);
  ASSERT_EQ(rows.rows.size(), 4u);
  ASSERT_EQ(rows.points.size(), 3u);
  EXPECT_EQ(rows.points[0]->id(), "a");
  EXPECT_FALSE(rows.rows[3].change.has_value());
  EXPECT_DOUBLE_EQ(*rows.rows[2].change, 1.0);
  EXPECT_FALSE(rows.rows[1].point);
  EXPECT_DOUBLE_EQ(*rows.rows[0].change, -0.25);  // against b, skipping the failed job
  EXPECT_EQ(rows.rows[0].machine_change, 1);
  EXPECT_EQ(rows.rows[2].machine_change, 0);
  ASSERT_EQ(rows.machine_changes.size(), 1u);
  EXPECT_EQ(rows.machine_changes[0].before->id(), "b");
  EXPECT_EQ(rows.machine_changes[0].differences, std::vector<std::string>{"BLAS: reference -> openblas"});
  EXPECT_EQ(HistoryCounts(rows), "4 jobs, 3 points (not plotted: 1 failed)");
}

TEST(MachineDifferences, NamesChangedAddedAndRemovedKeys) {
  EXPECT_TRUE(MachineDifferences("a=1; b=2", "a=1; b=2").empty());
  EXPECT_EQ(MachineDifferences("a=1; b=2", "a=1; b=3; c=4"), (std::vector<std::string>{"b: 2 -> 3", "c: (none) -> 4"}));
  EXPECT_EQ(MachineDifferences("a=1; gone=x", "a=1"), std::vector<std::string>{"gone: x -> (none)"});
  EXPECT_EQ(MachineDifferences("old box", "a=1"), std::vector<std::string>{"machine: old box -> a=1"});
  EXPECT_EQ(MachineDifferences("a=1; b=2", "b=2; a=1"), std::vector<std::string>{"machine: a=1; b=2 -> b=2; a=1"});
}

TEST(HistoryPoints, ShortFormsOfRevisionsAndTimes) {
  EXPECT_EQ(ShortRevision("0123456789abcdef0123"), "0123456789ab");
  EXPECT_EQ(ShortRevision("v1.2"), "v1.2");
  EXPECT_EQ(ShortRevision("ééééééééééééé"), "éééééééééééé");
  EXPECT_EQ(ShortTime("2026-12-01T08:41:21.123Z"), "2026-12-01 08:41 UTC");
  EXPECT_EQ(ShortTime("yesterday"), "yesterday");
  EXPECT_EQ(ShortDate("2026-12-01T08:41:21.123Z"), "2026-12-01");
  EXPECT_EQ(ShortDate(""), "");
}

}  // namespace
}  // namespace torchscan::report
