#!/usr/bin/env bash
# Study-store overhead against the trials it records, measured in one run on the synthetic
# workload: (1) `pacer tune` with its own accounting (wall time inside store calls -- claims,
# heartbeats, eval rows, results -- over wall time inside the trial runner), (2) per-operation
# latencies from bench_store_ops, combined per trial and per eval with the trial and eval times
# of the same tune run. Goal: store time under 1% of trial time.
#
#   bench/store/store_overhead.sh [BUILD_DIR=build] [OUT_DIR=runs/bench-store]
#   env: STUDIES (2), TRIALS (5), THREADS (1)
set -euo pipefail
BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench-store}
STUDIES=${STUDIES:-2}
TRIALS=${TRIALS:-5}
THREADS=${THREADS:-1}
PACER=$BUILD_DIR/pacer
OPS=$BUILD_DIR/bench/bench_store_ops
for exe in "$PACER" "$OPS"; do
  [[ -x $exe ]] || { echo "store_overhead.sh: $exe not found; build it first" >&2; exit 2; }
done
mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR"/tune.db "$OUT_DIR"/tune.db-wal "$OUT_DIR"/tune.db-shm

# Full 2 s budget per trial (--ignore-targets), evals at the workload's 0.05 s period: the
# densest eval cadence Pacer ships, hence the worst case for per-eval writes.
"$PACER" tune -w synthetic_regression -a sgd --space spaces/sgd.json --studies "$STUDIES" --trials "$TRIALS" \
  --ignore-targets --threads "$THREADS" -q --store "$OUT_DIR/tune.db" >"$OUT_DIR/tune.txt"
"$OPS" 200 20 "$OUT_DIR" >"$OUT_DIR/ops.json"

/usr/bin/python3 - "$OUT_DIR" <<'PY'
import json, re, sqlite3, sys
out = sys.argv[1]
text = open(f"{out}/tune.txt").read()
m = re.search(r"store overhead: (\d+) calls, ([\d.]+) ms in total, ([\d.]+)% of ([\d.]+) s of trials \((\d+) evals", text)
calls, store_ms, pct, trial_s, evals = int(m[1]), float(m[2]), float(m[3]), float(m[4]), int(m[5])
db = sqlite3.connect(f"{out}/tune.db")
n_trials = db.execute("select count(*) from trials where status in ('complete','diverged','failed')").fetchone()[0]
ops = json.load(open(f"{out}/ops.json"))["ops_ms"]
per_trial_s = trial_s / n_trials
evals_per_trial = evals / n_trials
heartbeats = per_trial_s / 10.0  # default lease 60 s, heartbeat every 10 s
model_ms = ops["claim"]["median"] + ops["finish"]["median"] + evals_per_trial * ops["record_eval"]["median"] + \
    heartbeats * ops["heartbeat"]["median"]
result = {
    "tune": {"trials": n_trials, "trial_seconds": trial_s, "evals": evals, "store_calls": calls,
             "store_ms": store_ms, "store_percent_of_trial_time": pct},
    "ops_ms_median": {k: v["median"] for k, v in ops.items()},
    "per_trial": {"seconds": per_trial_s, "evals": evals_per_trial, "store_ms_from_ops": model_ms,
                  "store_percent_from_ops": 100.0 * model_ms / (per_trial_s * 1000.0)},
    "per_eval": {"store_ms": ops["record_eval"]["median"]},
}
json.dump(result, open(f"{out}/store_overhead.json", "w"), indent=2)
md = [
    "| measure | value |", "| --- | --- |",
    f"| trials (synthetic_regression, full 2 s budget; diverged ones included) | {n_trials} |",
    f"| evals per trial | {evals_per_trial:.1f} |",
    f"| wall time per trial | {per_trial_s:.3f} s |",
    f"| store time, measured in `pacer tune` | {store_ms:.1f} ms over {calls} calls = **{pct:.3f}%** of trial time |",
    f"| claim / record_eval / heartbeat / finish (median) | {ops['claim']['median']:.3f} / {ops['record_eval']['median']:.3f} / {ops['heartbeat']['median']:.3f} / {ops['finish']['median']:.3f} ms |",
    f"| per trial from the op latencies | {model_ms:.2f} ms = {100.0 * model_ms / (per_trial_s * 1000.0):.3f}% |",
]
open(f"{out}/store_overhead.md", "w").write("\n".join(md) + "\n")
print("\n".join(md))
PY
