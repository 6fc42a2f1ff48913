#!/usr/bin/env bash
# Process start of the commands that do not train (issue 46): `pacer --help`, `pacer study list
# STORE`, `pacer score STORE` and `pacer list`, each run REPS times by two pacer executables,
# interleaved (before, after, before, ...). Per run: CPU time (user + system of the process and
# whatever it execs, from getrusage(RUSAGE_CHILDREN), microseconds) and wall time. The store is a
# small one (one study of two synthetic-regression trials), so what is measured is the program's
# start, not its work. Prints a Markdown table of medians (min-max) and writes every run to
# OUT/process_start.csv.
#
#   bench/process_start/process_start.sh BEFORE_PACER AFTER_PACER [REPS=10] [OUT=runs/bench]
#   e.g. bench/process_start/process_start.sh runs/board_v2/pacer build/pacer
set -euo pipefail
BEFORE=${1:?give the pacer before}
AFTER=${2:?give the pacer after}
REPS=${3:-10}
OUT=${4:-runs/bench}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$AFTER" tune -w synthetic_regression -a sgd --space "$(dirname "$0")/../../spaces/sgd.json" --studies 1 --trials 2 \
  --store "$WORK/small.db" -q >/dev/null 2>&1 ||
  { echo "process_start.sh: could not make the small store with $AFTER" >&2; exit 1; }

/usr/bin/python3 - "$BEFORE" "$AFTER" "$REPS" "$WORK" "$OUT/process_start.csv" <<'EOF'
import csv, resource, statistics, subprocess, sys, time
before, after, reps, work, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
store = f"{work}/small.db"
commands = {"pacer --help": ["--help"], "pacer study list STORE": ["study", "list", store],
            "pacer score STORE": ["score", store, "--out", f"{work}/score"], "pacer list": ["list"]}

def run(program, args):
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([program] + args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"process_start.sh: {program} {' '.join(args)} exited {done.returncode}")
    return now.ru_utime - used.ru_utime + now.ru_stime - used.ru_stime, wall

rows = []
for rep in range(1, reps + 1):
    for name, args in commands.items():
        for which, program in (("before", before), ("after", after)):
            cpu, wall = run(program, args)
            rows.append({"program": which, "command": name, "rep": rep, "cpu_s": cpu, "wall_s": wall})
with open(out, "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)

def cell(values):
    return f"{statistics.median(values) * 1000:.1f} ({min(values) * 1000:.1f}-{max(values) * 1000:.1f})"
print(f"before: {before}, after: {after}; milliseconds, median (min-max) of {reps} interleaved runs\n")
print("| command | before: CPU ms | after: CPU ms | before: wall ms | after: wall ms |")
print("| --- | --- | --- | --- | --- |")
for name in commands:
    get = lambda which, key: [r[key] for r in rows if r["command"] == name and r["program"] == which]
    print(f"| `{name}` | {cell(get('before', 'cpu_s'))} | {cell(get('after', 'cpu_s'))} | "
          f"{cell(get('before', 'wall_s'))} | {cell(get('after', 'wall_s'))} |")
EOF
