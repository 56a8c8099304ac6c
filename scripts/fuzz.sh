#!/usr/bin/env bash
# Fuzzes TorchScan's loaders of user files with libFuzzer (clang, ASan + UBSan):
#   report_json_fuzzer  saved reports and comparisons (report/report_json.h, validation, renderers)
#   job_file_fuzzer     job files (client LoadJobFile → daemon ValidateJobSpec → worker spec.json)
#   wire_request_fuzzer the gRPC request bytes torchscand reads (daemon/received_request.h,
#                       daemon/wire_text.h, then ValidateJobSpec for a Submit)
#
#   scripts/fuzz.sh [SECONDS]        SECONDS per target, default 60
#
# Installs scripts/setup.sh's packages plus clang-14 and libclang-rt-14-dev (libFuzzer) if
# missing; builds the three manual targets of tests/fuzz/BUILD.bazel with clang in their own
# Bazel output base ($TORCHSCAN_FUZZ_OUTPUT_BASE, default ~/.cache/torchscan/bazel-fuzz), so
# the gcc build is untouched; copies the seeds of tests/fuzz/corpus/ into a scratch folder
# ($TORCHSCAN_FUZZ_WORK, default /tmp/torchscan-fuzz, emptied first) and runs each target
# with a dictionary of the schema's field and enum names. Prints per target the executions,
# the corpus size and the crashes (with the input's path), and exits 1 when a target found
# a crash, leak, timeout or out-of-memory input. Not part of `bazel test //...`: the gcc
# tests //tests/fuzz:*_replay only replay the seeds.
#
# A crash file reproduces with `<fuzzer binary> FILE`; once fixed, copy it into
# tests/fuzz/corpus/<report|job|wire>/regression-<what>.json so the replay tests keep it.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
if ! [[ "$seconds" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: SECONDS must be a whole number of seconds >= 1, got \"$seconds\"" >&2
  exit 2
fi
output_base=${TORCHSCAN_FUZZ_OUTPUT_BASE:-$HOME/.cache/torchscan/bazel-fuzz}
work=${TORCHSCAN_FUZZ_WORK:-/tmp/torchscan-fuzz}

# ---------------------------------------------------------------- tools
scripts/setup.sh
runtime_glob='/usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'
if ! command -v clang-14 >/dev/null || ! compgen -G "$runtime_glob" >/dev/null; then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  echo "fuzz.sh: installing clang-14 libclang-rt-14-dev"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends clang-14 libclang-rt-14-dev
fi

# ---------------------------------------------------------------- build
targets=(report_json_fuzzer job_file_fuzzer wire_request_fuzzer)
sanitizers=fuzzer,address,undefined
bazel --output_base="$output_base" build --experimental_convenience_symlinks=ignore \
  --repo_env=CC=clang-14 \
  --copt=-fsanitize=fuzzer-no-link,address,undefined --copt=-fno-sanitize-recover=all \
  --copt=-fno-omit-frame-pointer --copt=-gline-tables-only \
  --linkopt=-fsanitize=$sanitizers --linkopt=-fsanitize-link-c++-runtime \
  "${targets[@]/#/\/\/tests\/fuzz:}"
bin="$output_base/execroot/torchscan/bazel-out/k8-opt/bin/tests/fuzz"

# ---------------------------------------------------------------- dictionary
# Every field and enum value name of the schema, quoted as JSON keys/strings, and the JSON
# tokens the loaders treat specially.
rm -rf "$work"
mkdir -p "$work"
dict="$work/schema.dict"
{
  printf '%s\n' '"{"' '"}"' '"["' '"]"' '":"' '","' '"true"' '"false"' '"null"' '"-0"' '"1e308"' \
    '"\"NaN\""' '"\"Infinity\""' '"\"-Infinity\""' '"\"\\u0000\""' '"\"\\ud800\""'
  sed -n 's/^[^/]*[^A-Za-z0-9_]\([a-z][A-Za-z0-9_]*\) = [0-9][0-9]*.*;.*/\1/p' proto/*.proto | sort -u |
    sed 's/.*/"\\"&\\""/'
} >"$dict"

# ---------------------------------------------------------------- fuzz
declare -A seeds=([report_json_fuzzer]=report [job_file_fuzzer]=job [wire_request_fuzzer]=wire)
failed=0
summary=()
for target in "${targets[@]}"; do
  corpus="$work/$target/corpus"
  artifacts="$work/$target/artifacts"
  log="$work/$target/fuzz.log"
  mkdir -p "$corpus" "$artifacts"
  cp tests/fuzz/corpus/"${seeds[$target]}"/* "$corpus"/
  seed_count=$(ls "$corpus" | wc -l)
  echo "fuzz.sh: $target for ${seconds}s from $seed_count seeds (log: $log)"
  rc=0
  "$bin/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -dict="$dict" -artifact_prefix="$artifacts/" "$corpus" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # libFuzzer's own count (its last status line) and the files it left in the folder.
  corpus_units=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | sed 's/corp: //' || true)
  corpus_files=$(ls "$corpus" | wc -l)
  crashes=$(find "$artifacts" -type f | sort)
  crash_count=$(grep -c . <<<"$crashes" || true)
  line="$target: ${execs:-?} runs executed, corpus ${corpus_units:-?} inputs ($seed_count seeds, $corpus_files files in $corpus), $crash_count crash(es)"
  if [[ $rc -ne 0 || $crash_count -ne 0 ]]; then
    failed=1
    line+=" (libFuzzer exit $rc)"
    for f in $crashes; do line+=$'\n'"  crash input: $f"; done
    echo "----- $target: end of $log"
    tail -40 "$log"
  fi
  summary+=("$line")
done

echo "===== fuzz summary (${seconds}s per target)"
printf '%s\n' "${summary[@]}"
exit $failed
