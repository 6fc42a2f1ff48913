#!/usr/bin/env bash
# The cost of reading a store of an older schema (issue 61, item 16): `pacer study list STORE` and
# `pacer score STORE`, REPS times each, interleaved: without a kept copy (PACER_CACHE_DIR unusable,
# so the store is copied and migrated in memory at every read, as before the cache) and with one
# (store/migrated_store_cache.h; a fresh cache folder, so the first read makes the copy and is
# reported apart). A current store of the same program beside them, for scale. CPU = user + system
# of the process (getrusage of the children), milliseconds. Prints a Markdown table of medians
# (min-max); writes every run to OUT/old_store_read.csv.
#
#   bench/store/old_store_read.sh PACER STORE [CURRENT_STORE] [REPS=10] [OUT=runs/bench]
#   e.g. bench/store/old_store_read.sh build/pacer docs/results/leaderboard/board.db docs/results/board_v3/board.db
set -euo pipefail
PACER=${1:?give the pacer}
STORE=${2:?give a store of an older schema}
CURRENT=${3:-}
REPS=${4:-10}
OUT=${5:-runs/bench}
mkdir -p "$OUT"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 - "$PACER" "$STORE" "$CURRENT" "$REPS" "$WORK" "$OUT/old_store_read.csv" <<'PY'
import csv, os, resource, statistics, subprocess, sys
pacer, store, current, reps, work, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
envs = {"without": dict(os.environ, PACER_CACHE_DIR="/dev/null/no-cache"),
        "with": dict(os.environ, PACER_CACHE_DIR=f"{work}/cache")}
commands = {"pacer study list STORE": ["study", "list"], "pacer score STORE": ["score", "--out", f"{work}/score"]}
def cpu_ms(args, target, env):
    argv = [pacer] + args[:2 if args[0] == "study" else 1] + [target] + args[2 if args[0] == "study" else 1:]
    start = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=envs[env], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if done.returncode != 0:
        sys.exit(f"old_store_read.sh: {' '.join(argv)} exited {done.returncode}")
    end = resource.getrusage(resource.RUSAGE_CHILDREN)
    return 1000 * (end.ru_utime - start.ru_utime + end.ru_stime - start.ru_stime)
rows, first = [], {}
runs = [("without", store), ("with", store)] + ([("current", current)] if current else [])
for name, args in commands.items():
    first[name] = cpu_ms(args, store, "with")  # makes the kept copy
    for rep in range(reps):
        for label, target in runs:
            env = "without" if label == "current" else label
            rows.append({"command": name, "program": label, "rep": rep, "cpu_ms": round(cpu_ms(args, target, env), 2)})
with open(out, "w", newline="") as f:
    writer = csv.DictWriter(f, fieldnames=["command", "program", "rep", "cpu_ms"])
    writer.writeheader()
    writer.writerows(rows)
def summary(values):
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"
print(f"store: {store} ({os.path.getsize(store) / 1e6:.1f} MB)" +
      (f"; current store: {current} ({os.path.getsize(current) / 1e6:.1f} MB)" if current else "") +
      f"; {reps} interleaved runs")
print("| command | copied and migrated at each read: CPU ms | first read, keeping the copy | kept copy: CPU ms |" +
      (" current store: CPU ms |" if current else ""))
print("| --- | --- | --- | --- |" + (" --- |" if current else ""))
for name in commands:
    cells = [summary([r["cpu_ms"] for r in rows if r["command"] == name and r["program"] == p])
             for p, _ in runs]
    print(f"| `{name}` | {cells[0]} | {first[name]:.1f} | {cells[1]} |" + (f" {cells[2]} |" if current else ""))
PY
