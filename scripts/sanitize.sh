#!/usr/bin/env bash
# The sanitizer builds of CI (docs/development.md). LibTorch, OpenBLAS, Gloo, SQLite, libpq and
# libpqxx come from Debian uninstrumented; the suppressions in scripts/sanitizers/ name only those.
#   scripts/sanitize.sh [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${1:-$(nproc)}
# clang (installed by scripts/setup.sh --fuzz): its instrumentation costs 1-3 s per translation
# unit where gcc's UndefinedBehaviorSanitizer costs 10-16 s (docs/development.md, "Build time").
# CXX=g++ ./scripts/sanitize.sh builds with gcc instead.
cxx=${CXX:-clang++}
asan_build=${ASAN_BUILD:-build-asan}
tsan_build=${TSAN_BUILD:-build-tsan}
supp=$PWD/scripts/sanitizers
seconds() { echo $(( $(date +%s) - $1 )); }
# pacer run takes fewer threads on a busy machine; tests that compare runs must not (tests/CMakeLists.txt).
export PACER_IGNORE_LOAD=1
# The tests' kept copies of older stores (store/migrated_store_cache.h): in the build tree.
export PACER_CACHE_DIR=$PWD/${ASAN_BUILD:-build-asan}/test-cache
# The longest executables under ASan start first (longest-processing-time order), so that the
# suite does not end with one of them running alone. Measured under clang's ASan with the board
# running beside it (2026-11-26): tune_cli_test 348 s, race_test 253, data_parallel_test 232,
# input_hardening_test 190, checkpoint_test 180, cli_test 164, python_submission_test 157,
# plugin_test 140; the other 26 under 100 s each.
long_first=(tune_cli_test race_test data_parallel_test input_hardening_test checkpoint_test cli_test
            python_submission_test plugin_test)
suite_order() {
  local build=$1 name
  for name in "${long_first[@]}"; do [[ -x $build/tests/$name ]] && echo "$build/tests/$name"; done
  for name in "$build"/tests/*_test; do
    [[ " ${long_first[*]} " == *" $(basename "$name") "* ]] || echo "$name"
  done
}
# What the ASan+UBSan suite leaves to the Release stages (CI's budget, docs/development.md): the
# CLI tests that only orchestrate processes around uninstrumented LibTorch training, whose own code
# runs under the sanitizers in process elsewhere. tune_cli_test (the tuning workers and boards as
# processes; in process: tuning_worker_test, study_store_test, and under ThreadSanitizer) and
# data_parallel_test's multi-process Gloo jobs (the combiners and communicators in process:
# adasum_test, trial_loop_test; its launcher and rendezvous tests still run): about 550 s of the
# suite's 1,970 s of executable time under ASan (the figures above).
declare -A asan_filter=([tune_cli_test]='-*' [data_parallel_test]='-DataParallelTest.*:DistributedRank.*')
# Runs every GoogleTest executable of BUILD (JOBS at a time), each with its filter above if any; a
# failure prints its log and stops.
run_suite() {
  local build=$1 exe
  mkdir -p "$build/sanitize-logs"
  suite_order "$build" | while read -r exe; do
    [[ ${asan_filter[$(basename "$exe")]:-} == '-*' ]] && { echo "  $(basename "$exe"): left to the Release stages" >&2; continue; }
    printf '%s\t%s\n' "$exe" "${asan_filter[$(basename "$exe")]:-*}"
  done | xargs -P "$jobs" -L 1 sh -c \
    'log='"$build"'/sanitize-logs/$(basename $0).log; if $0 --gtest_brief=1 --gtest_filter="$1" >"$log" 2>&1; then echo "  $(basename $0): clean"; else echo "  $(basename $0): FAILED"; tail -n 60 "$log"; exit 255; fi'
}

# 1. AddressSanitizer + UndefinedBehaviorSanitizer: the whole test suite.
start=$(date +%s)
cmake -S . -B "$asan_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DPACER_SANITIZE=address,undefined -DPACER_BUILD_BENCH=OFF
cmake --build "$asan_build" -j "$jobs"
built=$(seconds "$start")
# LSan reads its suppressions from LSAN_OPTIONS (ASan has no leak: entries of its own).
export ASAN_OPTIONS="detect_leaks=1:detect_odr_violation=0:strict_string_checks=1"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$supp/ubsan.supp"
start=$(date +%s)
# Each test executable runs once with all its tests (not one process per test as under CTest):
# an instrumented process takes about 1.4 s longer to start with LibTorch loaded.
run_suite "$asan_build"
echo "sanitize: address,undefined: built in ${built} s, whole suite clean in $(seconds "$start") s"
unset ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS

# 2. ThreadSanitizer: the tests with threads of Pacer's own, all in process: the store's
# concurrent writers and leases, the prefetching batch stream, virtual workers on in-process
# communicators (adasum_test, and the trial loop's FrameworkCombining), and the tuning workers as
# threads (tuning_worker_test: two workers sharing studies, their heartbeat threads, a stop
# request, the deadline watch, a board's workers and progress reporter). Not the multi-process
# Gloo tests: their threads are LibTorch's c10d, whose synchronization TSan cannot see in an
# uninstrumented LibTorch. No test here spawns the pacer executable, so it is not built. One
# OpenMP thread: LibTorch's pool is not instrumented either.
tsan_tests=(tuning_worker_test study_store_test batch_stream_test adasum_test trial_loop_test)
declare -A tsan_filter=([trial_loop_test]='FrameworkCombining.*:AlgorithmMetrics.*')
start=$(date +%s)
cmake -S . -B "$tsan_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
  -DPACER_SANITIZE=thread -DPACER_BUILD_BENCH=OFF
cmake --build "$tsan_build" -j "$jobs" --target "${tsan_tests[@]}"
built=$(seconds "$start")
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$supp/tsan.supp"
export OMP_NUM_THREADS=1
start=$(date +%s)
# JOBS at a time, the longest first; a failure prints its log and stops.
mkdir -p "$tsan_build/sanitize-logs"
for t in "${tsan_tests[@]}"; do echo "$t"; done |
  while read -r t; do printf '%s\t%s\n' "$t" "${tsan_filter[$t]:-*}"; done |
  xargs -P "$jobs" -L 1 sh -c \
    'log='"$tsan_build"'/sanitize-logs/$0.log; if '"$tsan_build"'/tests/$0 --gtest_brief=1 --gtest_filter="$1" >"$log" 2>&1; then echo "  $0: clean"; else echo "  $0: FAILED"; tail -n 60 "$log"; exit 255; fi'
echo "sanitize: thread: built in ${built} s, ${tsan_tests[*]} clean in $(seconds "$start") s"
