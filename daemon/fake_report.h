// Test helper: the smallest BenchmarkReport that report/validate.h accepts (one block).
#pragma once

#include <string>

#include "proto/report.pb.h"
#include "report/report_json.h"

namespace torchscan::daemon {

inline v1::BenchmarkReport FakeReport(const std::string& name) {
  v1::BenchmarkReport r;
  r.set_schema_version(report::kReportSchemaVersion);
  r.set_name(name);
  r.mutable_settings()->set_device("cpu");
  r.mutable_environment()->set_hostname("fake");
  v1::TimingBlock* block = r.mutable_timing()->add_blocks();
  block->set_calls(10);
  block->set_duration_s(0.001);
  r.mutable_timing()->mutable_summary()->set_block_count(1);
  r.set_work_units(1);
  r.set_work_unit("calls");
  return r;
}

}  // namespace torchscan::daemon
