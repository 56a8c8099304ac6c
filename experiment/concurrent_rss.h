// The peak-RSS trials of one job (passes/peak_rss.h), run concurrently: each trial waits for
// its own fresh torchscan_rss_child in a thread of its own, so the children of a comparison
// (baseline and candidate) run at once, beside the worker's own start-up and builds.
// experiment/experiment.cc starts them as soon as the job's options are valid and joins them all
// before the first timed block: no RSS child runs beside a timing phase. No LibTorch.
//
// Why running the children at once, or beside the worker, leaves each figure unchanged: the
// metric is the child's VmHWM, the peak resident set of that one process (the pages mapped
// into it and touched: its own heap, LibTorch's code and data it loaded). It is a per-process
// high-water mark: another process running at the same time adds nothing to it (a shared
// library's pages count in every process that maps them, whether or not another process has
// them mapped too), and CPU contention slows the child without changing what it allocates.
// Only memory pressure that makes the kernel reclaim a child's pages could lower it, and the
// same pressure would lower a lone child's. experiment/concurrent_rss_test.cc compares a
// concurrent figure with a lone one.
//
// Every child is forked on the thread that constructs this object, one after the other, and
// the threads only wait: a fork from another thread while the constructing thread is inside
// LibTorch can hang it (passes/peak_rss.h, RssTrial: OpenBLAS's fork handler). So construct it
// on the thread that runs the job's LibTorch work, before that work starts. Each child dies
// with that thread (PR_SET_PDEATHSIG in peak_rss.cc), and a killed worker takes it, hence
// every child, with it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/phase_timeline.h"
#include "passes/peak_rss.h"
#include "proto/report.pb.h"
#include "proto/workload.pb.h"

namespace torchscan::experiment {

class ConcurrentRss {
 public:
  struct Trial {
    std::string name;       // the run: "baseline", "candidate", or a measurement's name
    v1::WorkloadSpec spec;  // what its child builds and calls
  };

  // Starts every trial at once: for each, a concurrent span "rss <name>" opens in `timeline`,
  // `on_begin("rss <name>")` is called (on this thread; may be empty), its child is launched
  // here (RssTrial::Launch) and a thread awaits it (RssTrial::Await); the span ends when its
  // child has ended (exited, crashed, timed out or cancelled). options.cancel is replaced by
  // this object's own. A trial whose thread cannot be started is awaited on this thread,
  // before the next starts.
  // `timeline` must outlive this object.
  // `waiting`: children a warm spare worker started before its job (RssTrial::LaunchWaiting),
  // given the first trials in order instead of new launches; those left over are killed here.
  ConcurrentRss(std::vector<Trial> trials, const std::string& child_path, const passes::RssTrialOptions& options,
                PhaseTimeline& timeline, const std::function<void(const std::string&)>& on_begin,
                std::vector<passes::RssTrial> waiting = {});

  // Waits for every child to end; returns each trial's metric (peak_rss.h: "peak_rss_bytes",
  // with the value or unknown with the reason), in the order of `trials`. Call once; a second
  // call returns nothing.
  std::vector<v1::MetricResult> Join();

  // A job that ends before Join (a build failed) kills the children still running (SIGKILL,
  // within one poll of peak_rss.cc) and waits for their threads: no child outlives this.
  ~ConcurrentRss();

  ConcurrentRss(const ConcurrentRss&) = delete;
  ConcurrentRss& operator=(const ConcurrentRss&) = delete;

 private:
  struct Running {
    int span = -1;
    v1::MetricResult metric;
    std::thread thread;
  };

  std::atomic<bool> cancel_{false};
  std::vector<std::unique_ptr<Running>> running_;
  bool joined_ = false;
};

}  // namespace torchscan::experiment
