#!/usr/bin/env bash
# Build the libFuzzer targets (clang, ASan + UBSan, build-fuzz/) and run each one.
#   scripts/fuzz.sh smoke [SECONDS]   every target for SECONDS (default 10) from the seeds:
#                                     the brief run of `make test`
#   scripts/fuzz.sh long [SECONDS] [MIN_RUNS]
#                                     every target for SECONDS (default 330) and at least
#                                     MIN_RUNS (default 100000) executions: the run
#                                     bench/RESULTS.md reports (`make fuzz`)
#   scripts/fuzz.sh TARGET ARGS…      one target with libFuzzer's own arguments
# The corpus grows in var/fuzz/corpus/<target>; a crashing input is kept in
# var/fuzz/artifacts/ and the script fails, printing how to replay it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
build=${FUZZ_BUILD:-build-fuzz}
targets=(fuzz_handlers fuzz_decode fuzz_ingest_json fuzz_dates fuzz_tokenize fuzz_config fuzz_mcp fuzz_derive_rules fuzz_catalog fuzz_stated)
mode=${1:-smoke}

CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DEG_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}" fuzz_seeds >/dev/null
rm -rf var/fuzz/seeds
mkdir -p var/fuzz/artifacts
"$build/fuzz_seeds" var/fuzz/seeds >/dev/null

# Leak checks stay on for our code; gRPC keeps process-wide state alive by design.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$repo/tests/fuzz/lsan.supp:print_suppressions=0}

RUNS=0 SECS=0 COV=0
run_one() { # target, libFuzzer arguments… → RUNS, SECS, COV (added to)
  local t=$1
  shift
  mkdir -p "var/fuzz/corpus/$t"
  local log="var/fuzz/$t.log"
  if ! "$build/$t" -artifact_prefix="var/fuzz/artifacts/$t-" -rss_limit_mb=4096 -timeout=60 \
      -print_final_stats=1 "$@" "var/fuzz/corpus/$t" "var/fuzz/seeds/$t" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "$t FAILED; replay: $build/$t var/fuzz/artifacts/$t-*" >&2
    exit 1
  fi
  RUNS=$((RUNS + $(sed -n 's/^stat::number_of_executed_units: *//p' "$log")))
  SECS=$((SECS + $(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")))
  COV=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
}

row() { # target
  printf '| %-17s | %10s | %7s | %7s | %5s | 0 |\n' "$1" "$RUNS" "$SECS" "$((RUNS / (SECS > 0 ? SECS : 1)))" "$COV"
}

echo "| target            | executions | seconds |  exec/s | edges | crashes |"
echo "|---|---:|---:|---:|---:|---:|"
case "$mode" in
  smoke)
    for t in "${targets[@]}"; do
      RUNS=0 SECS=0
      run_one "$t" -max_total_time="${2:-10}"
      row "$t"
    done ;;
  long)
    secs=${2:-330}
    min=${3:-100000}
    for t in "${targets[@]}"; do
      RUNS=0 SECS=0
      run_one "$t" -max_total_time="$secs"
      # fewer than MIN_RUNS in that time: on from the grown corpus until there are
      if [ "$RUNS" -lt "$min" ]; then run_one "$t" -runs=$((min - RUNS)); fi
      row "$t"
    done ;;
  fuzz_*)
    shift
    RUNS=0 SECS=0
    run_one "$mode" "$@"
    row "$mode" ;;
  *)
    echo "usage: scripts/fuzz.sh smoke [SECONDS] | long [SECONDS] [MIN_RUNS] | TARGET [libFuzzer args]" >&2
    exit 2 ;;
esac
