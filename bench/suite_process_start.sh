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
# the same: the time is what is measured). Prints a Markdown table; writes OUT/suite_process_start.csv.
#
#   bench/suite_process_start.sh CLONE [OUT=runs/bench] [TREES="build build-asan"] [PROGRAMS="light single"]
#   e.g. git clone -q . /tmp/fc && (cd /tmp/fc && .ci/run) && bench/suite_process_start.sh /tmp/fc
set -uo pipefail
CLONE=$(cd "${1:?give a clone whose trees are built (.ci/run)}" && pwd)
OUT=${2:-runs/bench}
TREES=${3:-build build-asan}
PROGRAMS=${4:-light single}
mkdir -p "$OUT"
csv="$OUT/suite_process_start.csv"  # appended to: a run of one tree or program adds its rows
[[ -s $csv ]] || echo "tree,program,user_s,system_s,core_s,wall_s,failed" > "$csv"
jobs=2
export PACER_IGNORE_LOAD=1 PACER_REQUIRE_POSTGRES=1

run_tree() {  # TREE: the suite once, as CI runs it; prints "user system wall failed"
  local tree=$1 log
  log=$(mktemp)
  if [[ $tree == *asan* ]]; then
    ASAN_OPTIONS="detect_leaks=1:detect_odr_violation=0:strict_string_checks=1" \
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
  echo "$(tail -n 1 "$log.time") ${failed:-0}"  # time's last line: before it, "Command exited with ..."
  rm -f "$log" "$log.time"
}

for tree in $TREES; do
  dir="$CLONE/$tree"
  [[ -x $dir/pacer && -x $dir/pacer-train ]] || { echo "suite_process_start: $dir has no pacer and pacer-train" >&2; exit 1; }
  cp -p "$dir/pacer" "$dir/pacer.light"
  for program in $PROGRAMS; do
    if [[ $program == single ]]; then cp "$dir/pacer-train" "$dir/pacer"; else cp -p "$dir/pacer.light" "$dir/pacer"; fi
    echo "suite_process_start: $tree with the $program program ..." >&2
    read -r user sys wall failed < <(run_tree "$tree")
    echo "$tree,$program,$user,$sys,$(awk "BEGIN { print $user + $sys }"),$wall,$failed" >> "$csv"
  done
  cp -p "$dir/pacer.light" "$dir/pacer" && rm -f "$dir/pacer.light"
done

/usr/bin/python3 - "$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| tree | single program: core s (wall s) | light pacer: core s (wall s) | saved core s |")
print("|---|---|---|---|")
total = 0.0
for tree in dict.fromkeys(r["tree"] for r in rows):
    by = {r["program"]: r for r in rows if r["tree"] == tree}  # the last run of each
    if set(by) != {"light", "single"}:
        continue
    saved = float(by["single"]["core_s"]) - float(by["light"]["core_s"])
    total += saved
    print(f"| {tree} | {float(by['single']['core_s']):.0f} ({float(by['single']['wall_s']):.0f}) | "
          f"{float(by['light']['core_s']):.0f} ({float(by['light']['wall_s']):.0f}) | {saved:.0f} |")
print(f"| all | | | {total:.0f} |")
EOF
