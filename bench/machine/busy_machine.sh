#!/usr/bin/env bash
# The README's first command (`make run`: pacer run -w fmnist_mlp -a nadamw --seed 1, wall clock,
# threads chosen by pacer) on a quiet machine and beside two busy processes (shell loops), with the
# threads chosen from the load (now) and without (PACER_IGNORE_LOAD=1: the machine's share, as
# before), interleaved ROUNDS times. Per run: reached or not, steps within the 7 s budget, time to
# target, eval time, threads. Goal (issue 48): beside two busy processes a run degrades in
# proportion to the cores it gets, not 10x.
#
#   bench/machine/busy_machine.sh [BUILD_DIR=build] [OUT=docs/results/busy_machine/runs.jsonl]   env: ROUNDS (2)
set -euo pipefail
BUILD_DIR=${1:-build}
OUT=${2:-docs/results/busy_machine/runs.jsonl}
ROUNDS=${ROUNDS:-2}
PACER=$BUILD_DIR/pacer
[[ -x $PACER ]] || { echo "busy_machine.sh: $PACER not found; build it first" >&2; exit 2; }
mkdir -p "$(dirname "$OUT")"
: >"$OUT"
work=$(mktemp -d)
busy_pids=()
stop_busy() { for p in "${busy_pids[@]}"; do kill "$p" 2>/dev/null || true; done; busy_pids=(); }
trap 'stop_busy; rm -rf "$work"' EXIT
for round in $(seq 1 "$ROUNDS"); do
  for load in quiet busy; do
    if [[ $load == busy ]]; then
      for _ in 1 2; do sh -c 'while :; do :; done' & busy_pids+=($!); done
      sleep 0.5
    fi
    for mode in from_load ignore_load; do
      rm -rf "$work/run"
      start=$(date +%s.%N)
      if [[ $mode == ignore_load ]]; then
        PACER_IGNORE_LOAD=1 "$PACER" run --workload fmnist_mlp --algorithm nadamw --seed 1 --out "$work/run" -q >/dev/null 2>"$work/err" || true
      else
        "$PACER" run --workload fmnist_mlp --algorithm nadamw --seed 1 --out "$work/run" -q >/dev/null 2>"$work/err" || true
      fi
      wall=$(echo "$(date +%s.%N) - $start" | bc)
      /usr/bin/python3 - "$work/run" "$round" "$load" "$mode" "$wall" "$work/err" >>"$OUT" <<'PY'
import glob, json, sys
run, rnd, load, mode, wall, err = sys.argv[1:]
t = json.load(open(f"{run}/trial.json"))
meta = json.load(open(glob.glob(f"{run}/**/meta_data_*.json", recursive=True)[0]))
print(json.dumps({"round": int(rnd), "load": load, "threads_chosen": mode, "threads": meta["num_threads"],
                  "status": t.get("status"), "steps": t.get("steps") or t.get("global_step"),
                  "time_to_target": t.get("time_to_target"), "submission_time": t.get("accumulated_submission_time"),
                  "eval_time": t.get("accumulated_eval_time"), "clock": t.get("clock"), "wall": float(wall),
                  "warned": "machine is busy" in open(err).read()}))
PY
      tail -n 1 "$OUT"
    done
    stop_busy
  done
done
