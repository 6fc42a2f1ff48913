#!/usr/bin/env bash
# Step-time benchmark for fmnist_mlp: `pacer run` against (a) a minimal hand-written LibTorch
# loop (bench/speed/minimal_loop.cpp) and (b) the same loop in PyTorch Python (bench/speed/python_loop.py),
# with the same step count and thread count, interleaved over R rounds (the order rotates each
# round so no program always runs first). Builds nothing: build pacer and bench_minimal_loop
# first (PACER_BUILD_BENCH=ON, the default).
#
#   bench/speed/step_time.sh [BUILD_DIR=build] [OUT_DIR=runs/bench]
#   env: STEPS (2000), THREADS (1), ROUNDS (3), WARMUP (50, peers only), PYTHON (/usr/bin/python3);
#   the environment reaches all three programs (e.g. OMP_WAIT_POLICY=passive, see docs/benchmarks.md)
#
# Per-step time: pacer = accumulated_submission_time / steps from trial.json (the AlgoPerf
# submission clock: data selection + update, evals excluded; it includes the cold first step);
# the peers time STEPS steps after WARMUP untimed ones. Writes OUT_DIR/step_time_t<THREADS>.json
# and .md (medians and ratios) and prints the table.
set -euo pipefail

BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench}
STEPS=${STEPS:-2000}
THREADS=${THREADS:-1}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-50}
PYTHON=${PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

PACER=$BUILD_DIR/pacer
MINIMAL=$BUILD_DIR/bench/bench_minimal_loop
for exe in "$PACER" "$MINIMAL"; do
  [[ -x $exe ]] || { echo "step_time.sh: $exe not found; build it first (cmake --build $BUILD_DIR)" >&2; exit 2; }
done
"$PYTHON" -c 'import torch, numpy' 2>/dev/null ||
  { echo "step_time.sh: $PYTHON lacks torch or numpy (set PYTHON=...)" >&2; exit 2; }

mkdir -p "$OUT_DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RAW=$TMP/raw.jsonl
: >"$RAW"

run_pacer() {
  local out=$TMP/pacer_$1
  "$PACER" run -w fmnist_mlp -a nadamw --seed 1 --max-steps "$STEPS" --eval-every "$STEPS" --ignore-targets \
    --threads "$THREADS" -q --out "$out" >/dev/null
  "$PYTHON" - "$out" "$1" >>"$RAW" <<'PY'
import csv, json, sys
out, rnd = sys.argv[1], int(sys.argv[2])
t = json.load(open(out + "/trial.json"))
rows = {int(r["global_step"]): r for r in csv.DictReader(open(out + "/eval_measurements.csv"))}
steps, total = t["steps"], t["accumulated_submission_time"]
first = float(rows[1]["accumulated_submission_time"]) if 1 in rows else None
rec = {"impl": "pacer", "round": rnd, "steps": steps, "seconds": total, "ms_per_step": 1000 * total / steps}
if first is not None and steps > 1:
    rec["first_step_ms"] = 1000 * first
    rec["ms_per_step_after_first"] = 1000 * (total - first) / (steps - 1)
print(json.dumps(rec))
PY
}
run_minimal() {
  "$MINIMAL" --steps "$STEPS" --warmup "$WARMUP" --threads "$THREADS" --seed 1 |
    "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); r["round"]=int(sys.argv[1]); print(json.dumps(r))' "$1" >>"$RAW"
}
run_python() {
  "$PYTHON" "$HERE/python_loop.py" --steps "$STEPS" --warmup "$WARMUP" --threads "$THREADS" --seed 1 |
    "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); r["round"]=int(sys.argv[1]); print(json.dumps(r))' "$1" >>"$RAW"
}

programs=(pacer minimal python)
for ((r = 1; r <= ROUNDS; ++r)); do
  for ((k = 0; k < 3; ++k)); do
    p=${programs[$(((r - 1 + k) % 3))]}
    echo "round $r/$ROUNDS: $p" >&2
    "run_$p" "$r"
  done
done

"$PYTHON" - "$RAW" "$OUT_DIR" "$STEPS" "$THREADS" "$ROUNDS" "$WARMUP" <<'PY'
import json, platform, statistics, sys, time
raw, out_dir, steps, threads, rounds, warmup = sys.argv[1:7]
runs = [json.loads(line) for line in open(raw)]
def values(impl, key="ms_per_step"):
    return [r[key] for r in runs if r["impl"] == impl and key in r]
def med(impl, key="ms_per_step"):
    xs = values(impl, key)
    return statistics.median(xs) if xs else None
def least(impl, key="ms_per_step"):
    xs = values(impl, key)
    return min(xs) if xs else None
def model_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()
import os
pacer, minimal, python = med("pacer"), med("libtorch_minimal"), med("pytorch_python")
pacer_after_first = med("pacer", "ms_per_step_after_first")
summary = {
    "benchmark": "fmnist_mlp step time", "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    "cpu": model_name(), "cores": os.cpu_count(), "load_average": os.getloadavg(),
    "steps": int(steps), "threads": int(threads), "rounds": int(rounds), "peer_warmup_steps": int(warmup),
    "median_ms_per_step": {"pacer": pacer, "libtorch_minimal": minimal, "pytorch_python": python},
    "min_ms_per_step": {"pacer": least("pacer"), "libtorch_minimal": least("libtorch_minimal"),
                        "pytorch_python": least("pytorch_python")},
    "median_cpu_ms_per_step": {"libtorch_minimal": med("libtorch_minimal", "cpu_ms_per_step"),
                               "pytorch_python": med("pytorch_python", "cpu_ms_per_step")},
    "pacer_ms_per_step_after_first_step": pacer_after_first,
    "pacer_first_step_ms": med("pacer", "first_step_ms"),
    "ratio_pacer_over_minimal": pacer / minimal, "ratio_pacer_over_python": pacer / python,
    "goal_minimal_within_5pct": pacer / minimal <= 1.05, "goal_python_at_most_0_8": pacer / python <= 0.8,
    "runs": runs,
}
base = f"{out_dir}/step_time_t{threads}"
json.dump(summary, open(base + ".json", "w"), indent=2)
def fmt(x): return f"{x:.3f}"
per_round = {}
for r in runs:
    per_round.setdefault(r["impl"], []).append(fmt(r["ms_per_step"]))
lines = [
    f"fmnist_mlp, {steps} steps, {threads} thread(s), {rounds} interleaved rounds, {summary['cpu']} ({summary['cores']} cores), "
    f"load average at the end {summary['load_average'][0]:.2f}",
    "",
    "| program | median ms/step | min ms/step | per round | pacer / this (medians) | pacer / this (mins) | goal | met |",
    "|---|---|---|---|---|---|---|---|",
    f"| pacer run | {fmt(pacer)} | {fmt(least('pacer'))} | {', '.join(per_round['pacer'])} | 1.00 | 1.00 | | |",
    f"| minimal LibTorch C++ | {fmt(minimal)} | {fmt(least('libtorch_minimal'))} | {', '.join(per_round['libtorch_minimal'])} | {pacer / minimal:.3f} | {least('pacer') / least('libtorch_minimal'):.3f} | <= 1.05 | {'yes' if summary['goal_minimal_within_5pct'] else 'no'} |",
    f"| PyTorch Python | {fmt(python)} | {fmt(least('pytorch_python'))} | {', '.join(per_round['pytorch_python'])} | {pacer / python:.3f} | {least('pacer') / least('pytorch_python'):.3f} | <= 0.80 | {'yes' if summary['goal_python_at_most_0_8'] else 'no'} |",
    "",
    f"pacer without its cold first step: {fmt(pacer_after_first)} ms/step (first step {summary['pacer_first_step_ms']:.1f} ms); "
    f"ratio to minimal {pacer_after_first / minimal:.3f}",
]
open(base + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"\nwrote {base}.json and {base}.md")
PY
