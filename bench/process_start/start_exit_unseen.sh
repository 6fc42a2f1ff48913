#!/usr/bin/env bash
# What bench/process_start/start_cost_shim.c cannot see of a process: its whole CPU time (/usr/bin/time) minus
# the shim's start (exec to main()) and exit (exit() to the last finalizer); the rest is mostly the
# kernel's exit (unmapping the libraries and, under ASan, their shadow memory). Mean of REPS runs of
# `PROGRAM list algorithms`.
#
#   bench/process_start/start_exit_unseen.sh PROGRAM [REPS=5]   e.g. bench/process_start/start_exit_unseen.sh /tmp/fc/build-asan/pacer-train
set -euo pipefail
program=$1 reps=${2:-5}
work=$(mktemp -d)
gcc -O2 -shared -fPIC -o "$work/shim.so" "$(dirname "$0")/start_cost_shim.c" -ldl
export ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=1:detect_odr_violation=0:strict_string_checks=1"
export PACER_IGNORE_LOAD=1
total=0 seen=0
for _ in $(seq "$reps"); do
  rm -f "$work/log.tsv"
  cpu=$( { /usr/bin/time -f "%U %S" env LD_PRELOAD="$work/shim.so" PACER_START_LOG="$work/log.tsv" \
           "$program" list algorithms > /dev/null; } 2>&1 | tail -n 1)
  shim=$(awk -F'\t' '$2 == "main" { m = $3 } $2 == "atexit" { a = $3 } $2 == "fini" { f = $3 } END { print m + (f - a) }' "$work/log.tsv")
  total=$(awk -v t="$total" -v c="$cpu" 'BEGIN { split(c, x, " "); print t + x[1] + x[2] }')
  seen=$(awk -v s="$seen" -v v="$shim" 'BEGIN { print s + v }')
done
awk -v p="$program" -v t="$total" -v s="$seen" -v n="$reps" \
  'BEGIN { printf "%s: whole %.3f s, seen by the shim %.3f s, unseen %.3f s (mean of %d)\n", p, t / n, s / n, (t - s) / n, n }'
rm -rf "$work"
