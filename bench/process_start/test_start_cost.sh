#!/usr/bin/env bash
# Start cost of test executables: each listing its tests REPS times under bench/process_start/start_cost_shim.c
# (CPU from exec to main() plus exit() to the last finalizer), with the sanitizer suites' options;
# prints each executable's median and their sum. Used for issue 46's CI goal: the ASan suite
# (scripts/sanitize.sh) starts each test executable once.
#
#   bench/process_start/test_start_cost.sh TREE REPS TEST...   e.g. bench/process_start/test_start_cost.sh /tmp/fc/build-asan 3 score_test tune_cli_test
set -euo pipefail
tree=$1 reps=$2
shift 2
work=$(mktemp -d)
gcc -O2 -shared -fPIC -o "$work/shim.so" "$(dirname "$0")/start_cost_shim.c" -ldl
export ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=1:detect_odr_violation=0:strict_string_checks=1"
export PACER_IGNORE_LOAD=1
for _ in $(seq "$reps"); do
  for t in "$@"; do
    LD_PRELOAD="$work/shim.so" PACER_START_LOG="$work/log.tsv" "$tree/tests/$t" --gtest_list_tests > /dev/null
  done
done
/usr/bin/python3 - "$work/log.tsv" <<'PY'
import collections, os, sys
procs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    key, event, cpu, exe, command, torch = line.rstrip("\n").split("\t")
    procs[key][event] = float(cpu)
    procs[key]["exe"], procs[key]["torch"] = os.path.basename(exe), torch
by = collections.defaultdict(list)
for p in procs.values():
    by[p["exe"]].append((p.get("main", 0.0) + (p["fini"] - p["atexit"] if "fini" in p and "atexit" in p else 0.0), p["torch"]))
total = 0.0
for exe, runs in sorted(by.items()):
    runs.sort()
    median, torch = runs[len(runs) // 2]
    total += median
    print(f"{exe} {median:.3f} s (n={len(runs)}, LibTorch loaded: {torch})")
print(f"sum of medians over {len(by)} executables: {total:.2f} s")
PY
rm -rf "$work"
