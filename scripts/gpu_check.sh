#!/usr/bin/env bash
# The GPU check (issue 43), ready for a GPU machine that has PyTorch 2.11 (CUDA) but no network
# and none of our Debian libraries:
#
#   scripts/gpu_check.sh pack [DIR]     here: builds the programs and packs into DIR (default
#                                       gpu_pack/, git-ignored) what that machine needs: the
#                                       programs, the non-torch libraries they link (at most
#                                       64 MiB) and this script with its Python
#   scripts/gpu_check.sh run DIR OUT    there: runs the checks against its torch (the python3 on
#                                       PATH, or $TORCHSCAN_GPU_PYTHON) and writes OUT/summary.txt
#   scripts/gpu_check.sh --dry-run [OUT]
#                                       pack, then run here with the CPU in the GPU's place: every
#                                       step but the GPU's own, each said skipped (in the default
#                                       test run: //tests:gpu_check_dry_run_test)
#
# The checks (each a line "PASS|FAIL|SKIP <step>: <figures>" in summary.txt):
#   1. the guide's example on the device with --rss is refused (RSS is for CPU jobs) and
#      without it succeeds
#   2. a compare of two CUDA models, byte-identical copies (A/A: no claim of a change) and a
#      +5 % change (21 against 20 layers: claimed slower)
#   3. a block timed by CUDA events against the host clock on a long kernel (ratio)
#   4. the allocator peak of a measure against torch.cuda.max_memory_allocated in Python
# On the device machine: `run` with carry ["gpu_pack"] and the command
#   scripts/gpu_check.sh run gpu_pack "$OUT"
set -euo pipefail
script_dir=$(cd "$(dirname "$0")" && pwd)

readonly programs=(//daemon:torchscand //worker:torchscan-worker //passes:torchscan_rss_child
                   //client:torchscan-client //benchmarks:event_clock_benchmark)
readonly max_pack_bytes=$((64 << 20))

die() { echo "gpu_check: $*" >&2; exit 1; }

# The built programs: $TORCHSCAN_GPU_CHECK_PROGRAMS (paths, for a test that has them built),
# else built here with Bazel.
built_programs() {
  if [[ -n ${TORCHSCAN_GPU_CHECK_PROGRAMS:-} ]]; then
    echo "$TORCHSCAN_GPU_CHECK_PROGRAMS"
    return
  fi
  read -r -a bazel <<<"${BAZEL:-bazel}"
  (cd "$script_dir/.." && "${bazel[@]}" build --ui_event_filters=-info,-debug --noshow_progress "${programs[@]}" >&2)
  local bin
  for target in "${programs[@]}"; do
    bin="$script_dir/../bazel-bin/${target#//}" && echo "${bin/://}"
  done
}

pack() {
  local dir=$1 bins
  bins=$(built_programs)
  rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/lib"
  for bin in $bins; do
    [[ -x $bin ]] || die "no program $bin"
    install -m 0755 "$bin" "$dir/bin/" && strip --strip-unneeded "$dir/bin/$(basename "$bin")"
  done
  # Every library the programs link except torch's own (that machine has them, CUDA
  # included) and glibc's (the loader's own); libstdc++ and libgcc_s travel, being newer here.
  ldd "$dir"/bin/* | awk '/=> \// {print $3}' | sort -u | while read -r lib; do
    case "$lib" in
      */site-packages/*) ;;
      */libc.so.*|*/libm.so.*|*/libdl.so.*|*/libpthread.so.*|*/librt.so.*|*/ld-linux*) ;;
      *) cp -L "$lib" "$dir/lib/" ;;
    esac
  done
  cp "$script_dir/gpu_check.sh" "$script_dir/gpu_check_models.py" "$dir/"
  local bytes
  bytes=$(du -sb "$dir" | cut -f1)
  ((bytes <= max_pack_bytes)) || die "the pack is $bytes bytes, over the 64 MiB a device run carries"
  echo "gpu_check: packed $(ls "$dir/bin" | wc -l) programs and $(ls "$dir/lib" | wc -l) libraries into $dir" \
    "($((bytes >> 20)) MiB)" >&2
}

run() {
  local dir out dry_run=${3:-}
  dir=$(cd "$1" && pwd) && mkdir -p "$2" && out=$(cd "$2" && pwd)
  local python=${TORCHSCAN_GPU_PYTHON:-python3}
  local torch_lib
  torch_lib=$("$python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"))') ||
    die "$python cannot import torch: set TORCHSCAN_GPU_PYTHON to a Python with torch 2.11"
  export LD_LIBRARY_PATH="$dir/lib:$torch_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  local summary=$out/summary.txt work=$out/work
  rm -rf "$work" && mkdir -p "$work"
  : >"$summary"
  note() { echo "$*" | tee -a "$summary"; }
  note "gpu_check $(date -u +%FT%TZ) on $(hostname): torch $("$python" -c 'import torch; print(torch.__version__)')"

  # Every library resolves, and only into the pack, torch's folders or glibc's own.
  local strays
  strays=$(ldd "$dir"/bin/* | awk '/=>/ {print $1 " " $3}' | while read -r name path; do
    case "$path" in
      "$dir"/lib/*|"$torch_lib"/*|*/site-packages/*) ;;
      *) case "$name" in libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*|ld-linux*) ;; *) echo "$name => $path" ;; esac ;;
    esac
  done | sort -u)
  if [[ -n $strays ]]; then
    note "FAIL libraries from outside the pack and torch: $(echo "$strays" | tr '\n' ';')"
    return 1
  fi
  local device=cuda:0
  if [[ -n $dry_run ]]; then
    device=cpu
    note "SKIP GPU steps: --dry-run runs each step with device cpu here"
  elif ! "$python" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)'; then
    note "FAIL no GPU: torch.cuda.is_available() is false on this machine"
    return 1
  else
    note "gpu: $("$python" -c 'import torch; print(torch.cuda.get_device_name(0))')"
  fi
  local client=("$dir/bin/torchscan-client") batch=256 judged=yes
  # A dry run times on a CPU beside other work: a verdict there is recorded, not judged, and
  # the models run on a small batch.
  [[ $device == cpu ]] && batch=8 judged=
  export TORCHSCAND="$dir/bin/torchscand"

  # 1. The guide's example: --rss refused on a GPU, then without it.
  if "${client[@]}" example --device "$device" --rss --min-run-time 0.05 --output "$work/example-rss" \
       >"$work/example-rss.log" 2>&1; then
    [[ $device == cpu ]] && note "PASS example --rss on cpu: succeeded (RSS is for CPU jobs)" ||
      note "FAIL example --rss on $device: not refused"
  elif grep -q "CPU jobs only" "$work/example-rss.log"; then
    note "PASS example --rss on $device: refused ($(grep -o "peak RSS measures[^;]*" "$work/example-rss.log" | head -1))"
  else
    note "FAIL example --rss on $device: $(tail -3 "$work/example-rss.log")"
  fi
  if "${client[@]}" example --device "$device" --output "$work/example" >"$work/example.log" 2>&1; then
    note "PASS example on $device: $(grep -m1 -i "faster\|slower\|within" "$work/example.log" || true)"
  else
    note "FAIL example on $device: $(tail -3 "$work/example.log")"
  fi

  # 2. Two compares of CUDA models: A/A copies and +5 %.
  "$python" "$dir/gpu_check_models.py" save "$work" || { note "FAIL models: could not save them"; return 1; }
  local verdict
  for case in "aa chain20.pt chain20_copy.pt" "plus5 chain20.pt chain21.pt"; do
    read -r name baseline candidate <<<"$case"
    if "${client[@]}" compare --device "$device" --baseline "$work/$baseline" --candidate "$work/$candidate" \
         --input "${batch}x1024" --no-check --output "$work/$name" >"$work/$name.log" 2>&1; then
      verdict=$("$python" "$dir/gpu_check_models.py" verdict "$work/$name/comparison.json")
      if [[ -z $judged ]]; then
        note "PASS compare $name on $device ran: $verdict (not judged on a CPU beside other work)"
      elif [[ $name == aa && $verdict != *"claim slower"* && $verdict != *"claim faster"* ]] ||
         [[ $name == plus5 && $verdict == *"claim slower"* ]]; then
        note "PASS compare $name on $device: $verdict"
      else
        note "FAIL compare $name on $device: $verdict"
      fi
    else
      note "FAIL compare $name on $device: $(tail -3 "$work/$name.log")"
    fi
  done

  # 3. Events against the host clock.
  if [[ $device == cpu ]]; then
    "$dir/bin/event_clock_benchmark" cpu --quick >"$work/event_clock.log" 2>&1 &&
      note "SKIP events vs host clock: no events on the CPU; $(tail -1 "$work/event_clock.log")" ||
      note "FAIL event_clock_benchmark: $(tail -3 "$work/event_clock.log")"
  elif "$dir/bin/event_clock_benchmark" "$device" >"$work/event_clock.log" 2>&1; then
    local ratio
    ratio=$(grep -o "ratio [0-9.]*" "$work/event_clock.log" | cut -d' ' -f2)
    if "$python" -c "import sys; sys.exit(0 if abs(float('$ratio') - 1) <= 0.02 else 1)"; then
      note "PASS events vs host clock: $(tail -1 "$work/event_clock.log")"
    else
      note "FAIL events vs host clock: $(tail -1 "$work/event_clock.log")"
    fi
  else
    note "FAIL event_clock_benchmark: $(tail -3 "$work/event_clock.log")"
  fi

  # 4. Allocator peak against Python's.
  if "${client[@]}" measure --device "$device" --torchscript "$work/chain20.pt" --input "${batch}x1024" \
       --output "$work/measure" >"$work/measure.log" 2>&1; then
    note "$("$python" "$dir/gpu_check_models.py" peak "$work/measure/report.json" "$work/chain20.pt" "$device" "$batch")"
  else
    note "FAIL measure on $device: $(tail -3 "$work/measure.log")"
  fi
  ! grep -q "^FAIL" "$summary"
}

case "${1:-}" in
  pack) pack "${2:-gpu_pack}" ;;
  run) [[ $# -eq 3 ]] || die "usage: scripts/gpu_check.sh run DIR OUT"; run "$2" "$3" ;;
  --dry-run)
    out=${2:-$(mktemp -d "${TEST_TMPDIR:-/tmp}/gpu_check.XXXXXX")}
    pack "$out/pack"
    run "$out/pack" "$out/result" dry-run ;;
  *) die "usage: scripts/gpu_check.sh pack [DIR] | run DIR OUT | --dry-run [OUT]" ;;
esac
