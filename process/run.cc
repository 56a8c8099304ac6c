#include "process/run.h"

#include "process/output_pump.h"
#include "process/stdio.h"

namespace torchscan::process {

RunResult Run(const RunOptions& options, const std::function<void(const std::string&)>& on_line,
              const std::function<void(const Spawned&)>& on_start) {
  RunResult result;
  Watch watch;
  watch.limit_s = options.wall_time_s;
  watch.control = options.control;
  if (options.control != nullptr && options.control->killed()) return result;
  Stdio stdio;
  if (!OpenStdio(options.stderr_path, /*stdin_socket=*/false, &stdio, &result.error)) {
    result.wall_s = SecondsSince(watch.start);
    return result;
  }
  SpawnOptions spawn = options.spawn;
  stdio.Into(&spawn.setup);
  result.started = Spawn(spawn, &result.spawned, &result.error);
  stdio.CloseChildEnds();
  if (!result.started) {
    result.wall_s = SecondsSince(watch.start);
    return result;
  }
  if (on_start) on_start(result.spawned);
  OutputPump pump(stdio.out_read.Release(), on_line);
  const Ending ending = Supervise(result.spawned.pid, &pump, watch, spawn.setup.own_process_group);
  result.end = ending.end;
  result.status = ending.status;
  result.wall_s = ending.wall_s;
  return result;
}

}  // namespace torchscan::process
