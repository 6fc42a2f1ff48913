#!/usr/bin/env bash
# Runs every fuzz target of a fuzz build: first over its committed inputs (fuzz/corpus/<name>:
# seeds and the inputs of every finding fixed so far, a regression check), then fuzzing for
# SECONDS each. A finding stops with its input under BUILD/findings/ and a non-zero exit. Targets
# run JOBS at a time (default: the CPUs), each on one core for its SECONDS, so on CI's two cores
# the six targets fuzz as long as before in half the wall time.
#   fuzz/run.sh BUILD [SECONDS] [JOBS]        (make fuzz FUZZ_SECONDS=600 to run longer)
set -euo pipefail
build=${1:?usage: fuzz/run.sh BUILD [SECONDS]}
seconds=${2:-20}
jobs=${3:-$(nproc)}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/findings"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# One target: its replay, then its fuzzing; prints one line (and the log's tail on a problem) and
# returns non-zero on a finding.
fuzz_one() {
  local fuzzer=$1 name seeds work start execs
  name=$(basename "$fuzzer" _fuzzer)
  seeds="$here/corpus/$name"
  work="$build/corpus/$name"  # grows across local runs; the committed seeds stay as they are
  mkdir -p "$work"
  start=$(date +%s)
  # -runs=0 over the committed inputs: each one once, as a regression check.
  if ! "$fuzzer" -runs=0 "$seeds" >"$build/findings/$name.replay.log" 2>&1; then
    echo "fuzz: $name FAILED on a committed input (log: $build/findings/$name.replay.log)"
    tail -n 30 "$build/findings/$name.replay.log"
    return 1
  fi
  if "$fuzzer" "$work" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -print_final_stats=1 -artifact_prefix="$build/findings/$name-" >"$build/findings/$name.log" 2>&1; then
    execs=$(grep -m1 'stat::number_of_executed_units' "$build/findings/$name.log" | awk '{print $2}')
    echo "fuzz: $name clean: ${execs:-?} inputs in $(( $(date +%s) - start )) s"
  else
    echo "fuzz: $name FOUND A PROBLEM (log: $build/findings/$name.log; input: $build/findings/$name-*)"
    grep -m5 -E 'ERROR|runtime error|uncaught|SUMMARY' "$build/findings/$name.log" || tail -n 30 "$build/findings/$name.log"
    return 1
  fi
}

status=0
running=0
for fuzzer in "$build"/fuzz/*_fuzzer; do
  if (( running >= jobs )); then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$fuzzer" &
  running=$((running + 1))
done
while (( running > 0 )); do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
