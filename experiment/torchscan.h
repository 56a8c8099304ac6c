// TorchScan's C++ API, the counterpart of the guide's Python calls:
//
//   measure_latency(fn, device=, inputs=, work_units=, work_unit=)
//       -> torchscan::experiment::MeasureTorchLatency(call, options)  experiment/torch_measure.h
//          (torch-free: torchscan::MeasureLatency, core/latency_runner.h)
//   compare_benchmarks(before, after, check=)
//       -> torchscan::CompareBenchmarks(before, after, CheckFn)        core/compare.h
//          checks: experiment::AssertClose (torch.testing.assert_close) experiment/torch_check.h
//   json.dumps / loading
//       -> torchscan::SaveJson, ToJson                                 io/proto_json.h
//          torchscan::report::LoadReport, LoadComparison               report/report_json.h
//   profile_workload, measure_peak_memory, measure_peak_rss
//       -> torchscan::passes::ProfileWorkload, MeasurePeakMemory,    passes/
//          MeasurePeakRss
//   the whole benchmark_comparison experiment
//       -> torchscan::experiment::RunComparison                        experiment/experiment.h
//
// Thread counts: torchscan::workloads::ApplyThreadSettings before the model is constructed.
// See benchmarks/compare_two_runs_example.cc for the guide's "Compare two runs" in C++.
#pragma once

#include "core/compare.h"
#include "core/latency_runner.h"
#include "core/output_check.h"
#include "experiment/experiment.h"
#include "experiment/torch_check.h"
#include "experiment/torch_measure.h"
#include "io/proto_json.h"
#include "passes/operator_profile.h"
#include "report/report_json.h"
#include "workloads/thread_settings.h"
