#!/usr/bin/env bash
# What the light pacer saves the test suite (issue 46's CI goal: at least 400 s of core time):
# the suite of a built tree run twice, once as built (build/pacer is the light program, which
# hands the commands that train to pacer-train) and once with a copy of pacer-train in pacer's
# place (the single program every command used to start, LibTorch loaded by each), the tree and
# the tests otherwise the same. Core time = user + system CPU of the whole run and everything it
# starts (getrusage of waited-for children). Use the trees `.ci/run` leaves in a fresh clone:
# `build` (Release, the suite through CTest as `make test` runs it) and `build-asan` (clang
# AddressSanitizer + UBSan, each test executable once, two at a time, as scripts/sanitize.sh runs
# it). Order per tree: light, single, so each tree's second run finds the same warm caches.
# Tests that check the light program itself fail in the single-program run (they are counted all
# the same: the time is what is measured). Prints a Markdown table (a row per run); writes OUT/suite_process_start.csv.
# The whole suite's core time holds its training too, whose noise between two runs (about 100 s) is
# as large as what is saved; so each run also measures the process-start time itself: every pacer
# and pacer-train process is timed by bench/process_start/start_cost_shim.c (LD_PRELOAD) from exec to main() and
# from exit() to its last finalizer, logged to OUT/start_log_TREE_PROGRAM.tsv and summed in the
# start_core_s column (processes: how many pacer processes ran, libtorch: how many of them loaded it);
# the test executables' processes likewise in the test_ columns.
#
#   bench/process_start/suite_process_start.sh CLONE [OUT=runs/bench] [TREES="build build-asan"] [PROGRAMS="light single"]
#   e.g. git clone -q . /tmp/fc && (cd /tmp/fc && .ci/run) && bench/process_start/suite_process_start.sh /tmp/fc
set -uo pipefail
CLONE=$(cd "${1:?give a clone whose trees are built (.ci/run)}" && pwd)
OUT=${2:-runs/bench}
TREES=${3:-build build-asan}
PROGRAMS=${4:-light single}
mkdir -p "$OUT"
csv="$OUT/suite_process_start.csv"  # appended to: a run of one tree or program adds its rows
header="tree,program,user_s,system_s,core_s,wall_s,failed,processes,libtorch,start_s,exit_s,start_core_s"
header+=",test_processes,test_libtorch,test_start_core_s"
[[ ! -s $csv || $(head -n 1 "$csv") == "$header" ]] || { echo "suite_process_start: $csv has other columns; give another OUT" >&2; exit 1; }
[[ -s $csv ]] || echo "$header" > "$csv"
shim="$OUT/start_cost_shim.so"
gcc -O2 -shared -fPIC -o "$shim" "$(dirname "$0")/start_cost_shim.c" -ldl || exit 1
shim=$(cd "$(dirname "$shim")" && pwd)/$(basename "$shim")
jobs=2
export PACER_IGNORE_LOAD=1 PACER_REQUIRE_POSTGRES=1

# A start log summed: pacer processes, those that loaded LibTorch, and the seconds of their starts
# and exits; then the test executables' processes, those that loaded LibTorch, and their seconds.
sum_starts() {  # LOG
  /usr/bin/python3 - "$1" <<'EOF'
import collections, os, sys
procs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    key, event, cpu, exe, command, torch = line.rstrip("\n").split("\t")
    p = procs[key]
    p[event] = float(cpu)  # the last of each: after an exec, the new image's main
    if event == "main":
        p["test"], p["torch"] = os.path.basename(exe).endswith("_test"), torch == "1"
def sums(group):
    start = sum(p.get("main", 0.0) for p in group)
    exit_ = sum(p["fini"] - p["atexit"] for p in group if "fini" in p and "atexit" in p)
    return len(group), sum(1 for p in group if p.get("torch")), start, exit_
n, torch, start, exit_ = sums([p for p in procs.values() if not p.get("test")])
tn, ttorch, tstart, texit = sums([p for p in procs.values() if p.get("test")])
print(n, torch, f"{start:.2f}", f"{exit_:.2f}", f"{start + exit_:.2f}", tn, ttorch, f"{tstart + texit:.2f}")
EOF
}

run_tree() {  # TREE PROGRAM: the suite once, as CI runs it; prints "user system wall failed" and the start sums
  local tree=$1 program=$2 log
  log=$(mktemp)
  local starts="$OUT/start_log_${tree}_${program}.tsv"
  rm -f "$starts"
  export LD_PRELOAD="$shim" PACER_START_LOG=$(cd "$OUT" && pwd)/$(basename "$starts")
  if [[ $tree == *asan* ]]; then
    ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=1:detect_odr_violation=0:strict_string_checks=1" \
    LSAN_OPTIONS="suppressions=$CLONE/scripts/sanitizers/lsan.supp:print_suppressions=0" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$CLONE/scripts/sanitizers/ubsan.supp" \
    /usr/bin/time -f "%U %S %e" -o "$log.time" sh -c \
      "ls '$CLONE/$tree'/tests/*_test | xargs -P $jobs -I{} sh -c '{} --gtest_brief=1 >/dev/null 2>&1 || echo FAILED {}'" \
      > "$log" 2>&1
  else
    (cd "$CLONE/$tree" && /usr/bin/time -f "%U %S %e" -o "$log.time" ctest -j $jobs --timeout 600 > "$log" 2>&1)
  fi
  local failed
  if [[ $tree == *asan* ]]; then failed=$(grep -c FAILED "$log"); else
    failed=$(grep -E "tests failed out of" "$log" | sed -E 's/.* ([0-9]+) tests failed.*/\1/'); fi
  unset LD_PRELOAD PACER_START_LOG
  # time's last line: before it, "Command exited with ..."
  echo "$(tail -n 1 "$log.time") ${failed:-0} $(sum_starts "$starts")"
  rm -f "$log" "$log.time"
}

for tree in $TREES; do
  dir="$CLONE/$tree"
  [[ -x $dir/pacer && -x $dir/pacer-train ]] || { echo "suite_process_start: $dir has no pacer and pacer-train" >&2; exit 1; }
  cp -p "$dir/pacer" "$dir/pacer.light"
  for program in $PROGRAMS; do
    if [[ $program == single ]]; then cp "$dir/pacer-train" "$dir/pacer"; else cp -p "$dir/pacer.light" "$dir/pacer"; fi
    echo "suite_process_start: $tree with the $program program ..." >&2
    read -r user sys wall failed processes torch start exit_ start_core tests tests_torch tests_core \
      < <(run_tree "$tree" "$program")
    echo "$tree,$program,$user,$sys,$(awk "BEGIN { print $user + $sys }"),$wall,$failed,$processes,$torch,$start,$exit_,$start_core,$tests,$tests_torch,$tests_core" >> "$csv"
  done
  cp -p "$dir/pacer.light" "$dir/pacer" && rm -f "$dir/pacer.light"
done

/usr/bin/python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| tree | program | suite core s (wall s) | pacer processes (LibTorch loaded) | their start core s "
      "| test processes (LibTorch loaded) | their start core s |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['tree']} | {r['program']} | {float(r['core_s']):.0f} ({float(r['wall_s']):.0f}) "
          f"| {r['processes']} ({r['libtorch']}) | {float(r['start_core_s']):.0f} "
          f"| {r.get('test_processes') or '-'} ({r.get('test_libtorch') or '-'}) | {r.get('test_start_core_s') or '-'} |")
EOF
