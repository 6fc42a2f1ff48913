#!/usr/bin/env bash
# What racing saves: the same external-tuning studies (each algorithm's shipped space, 3 studies x
# 5 trials, fixed seeds) run with and without racing, one after the other per algorithm. Reports
# each run's wall time, the trials' total time (store: total_duration, evals included) and their
# submission time, how many trials racing stopped, and each study's time to target in both runs
# (equal up to timing noise: the exactness itself is tests/race_test.cpp's, on a deterministic
# clock).
#
#   bench/tuning/racing.sh [BUILD_DIR=build] [OUT_DIR=runs/bench-racing]
#   env: ALGORITHMS ("lion adamw nadamw"), WORKLOADS ("fmnist_mlp,synthetic_regression"),
#        CLOCK (cpu), THREADS (1)
set -euo pipefail
BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench-racing}
ALGORITHMS=${ALGORITHMS:-lion adamw nadamw}
WORKLOADS=${WORKLOADS:-fmnist_mlp,synthetic_regression}
CLOCK=${CLOCK:-cpu}
THREADS=${THREADS:-1}
PACER=$BUILD_DIR/pacer
[[ -x $PACER ]] || { echo "racing.sh: $PACER not found; build it first" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT_DIR"
: >"$OUT_DIR/wall.tsv"
for alg in $ALGORITHMS; do
  for mode in race full; do
    store="$OUT_DIR/$alg-$mode.db"
    rm -f "$store" "$store-wal" "$store-shm"
    extra=()
    [[ $mode == full ]] && extra=(--no-race)
    start=$(date +%s.%N)
    "$PACER" tune -w "$WORKLOADS" -a "$alg" --space "$ROOT/spaces/$alg.json" --studies 3 --trials 5 --seed 1 \
      --threads "$THREADS" --clock "$CLOCK" --store "$store" -q "${extra[@]}" >"$OUT_DIR/$alg-$mode.txt"
    end=$(date +%s.%N)
    printf '%s\t%s\t%s\t%s\n' "$alg" "$mode" "$start" "$end" >>"$OUT_DIR/wall.tsv"
    "$PACER" score "$store" --out "$OUT_DIR/$alg-$mode-score" >/dev/null
    "$PACER" score "$store" --time steps --out "$OUT_DIR/$alg-$mode-score-steps" >/dev/null
    echo "racing.sh: $alg $mode done"
  done
done

python3 - "$OUT_DIR" "$ALGORITHMS" <<'PY'
import csv, json, sqlite3, sys
out, algorithms = sys.argv[1], sys.argv[2].split()
wall = {(a, m): float(e) - float(s) for a, m, s, e in csv.reader(open(f"{out}/wall.tsv"), delimiter="\t")}
rows, result = [], {}
print("algorithm  mode   wall s  trial s (evals incl.)  submission s  trials stopped  study times to target (s) per workload")
for a in algorithms:
    for m in ("full", "race"):
        db = sqlite3.connect(f"{out}/{a}-{m}.db")
        total, sub, stopped, n = db.execute(
            "SELECT sum(total_duration), sum(submission_time), sum(outcome = 'stopped'), count(*) FROM trials").fetchone()
        board = json.load(open(f"{out}/{a}-{m}-score/scores.json"))
        times = {w: [round(t, 2) if t is not None else None for t in v["study_times"]]
                 for w, v in board["submissions"][0]["workloads"].items()}
        result.setdefault(a, {})[m] = {"wall_s": wall[(a, m)], "trial_s": total, "submission_s": sub,
                                       "stopped": stopped, "trials": n, "study_times": times}
        print(f"{a:10s} {m:5s} {wall[(a, m)]:8.1f} {total:22.1f} {sub:13.1f} {stopped:9d}/{n}  {times}")
    f, r = result[a]["full"], result[a]["race"]
    result[a]["saved"] = {"wall": 1 - r["wall_s"] / f["wall_s"], "trial_s": 1 - r["trial_s"] / f["trial_s"]}
    print(f"{a:10s} saved: wall {100 * result[a]['saved']['wall']:.0f}%, trial time {100 * result[a]['saved']['trial_s']:.0f}%")
json.dump(result, open(f"{out}/racing.json", "w"), indent=2)
PY
