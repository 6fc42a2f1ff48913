#!/usr/bin/env bash
# Per-step time of an AlgoPerf submission written in Python (examples/python_submission/nadamw)
# run by Pacer (`pacer run -a FOLDER`), against the built-in `nadamw` it re-implements and against
# the same file driven by plain PyTorch (bench/speed/python_submission_peer.py). Same hyperparameters,
# batch size, one thread, the cpu clock; interleaved over R rounds with the order rotating, so a
# second job on the machine bends all three alike (compare the ratios, docs/benchmarks.md).
# Builds nothing: build pacer (and its Python bridge) first.
#
#   bench/speed/python_submission.sh [BUILD_DIR=build] [OUT_DIR=runs/bench]
#   env: ROUNDS (3), MLP_STEPS (600), RESNET_STEPS (150), PYTHON (/usr/bin/python3)
#
# Per-step time: pacer = accumulated_submission_time / steps (trial.json; data selection and the
# update, evals off the clock); the peer times its steps after 20 untimed ones. Writes
# OUT_DIR/python_submission.json and .md and prints the table.
set -euo pipefail
BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench}
ROUNDS=${ROUNDS:-3}
PYTHON=${PYTHON:-/usr/bin/python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PACER=$BUILD_DIR/pacer
[[ -x $PACER ]] || { echo "python_submission.sh: $PACER not found; build it first" >&2; exit 2; }
export OPENBLAS_NUM_THREADS=1
mkdir -p "$OUT_DIR"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/point.json" <<'JSON'
{"learning_rate": 0.005, "one_minus_beta1": 0.1, "beta2": 0.999, "weight_decay": 0.01, "warmup_factor": 0.05,
 "label_smoothing": 0.1, "dropout_rate": 0.0}
JSON
submission=$ROOT/examples/python_submission/nadamw
results=$work/results.jsonl
pacer_step() {  # workload algorithm steps -> seconds per step
  local out=$work/run
  rm -rf "$out"
  "$PACER" run -w "$1" -a "$2" --hparams "$work/point.json" --max-steps "$3" --eval-every "$3" --ignore-targets \
    --budget 1000000 --threads 1 --clock cpu --eval-splits validation -q --out "$out" >/dev/null
  "$PYTHON" -c 'import json,sys; t=json.load(open(sys.argv[1])); print(t["accumulated_submission_time"]/t["steps"])' "$out/trial.json"
}
peer_step() {
  "$PYTHON" "$HERE/python_submission_peer.py" --submission "$submission" --workload "$1" --hparams "$work/point.json" \
    --steps "$2" --threads 1 | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)["seconds_per_step"])'
}
for workload in fmnist_mlp fmnist_resnet; do
  steps=$([[ $workload == fmnist_mlp ]] && echo "${MLP_STEPS:-600}" || echo "${RESNET_STEPS:-150}")
  for round in $(seq 1 "$ROUNDS"); do
    order=(builtin python peer)
    for ((i = 0; i < round - 1; i++)); do order=("${order[@]:1}" "${order[0]}"); done
    for who in "${order[@]}"; do
      case $who in
        builtin) s=$(pacer_step "$workload" nadamw "$steps") ;;
        python) s=$(pacer_step "$workload" "$submission" "$steps") ;;
        peer) s=$(peer_step "$workload" "$steps") ;;
      esac
      echo "{\"workload\": \"$workload\", \"who\": \"$who\", \"round\": $round, \"seconds_per_step\": $s}" >> "$results"
      echo "python_submission: $workload $who round $round: $s s/step" >&2
    done
  done
done
"$PYTHON" - "$results" "$OUT_DIR" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
out = {"machine_load": open("/proc/loadavg").read().split()[:3], "rows": rows, "summary": {}}
lines = ["| workload | built-in nadamw (ms/step) | Python submission in Pacer | same file in plain PyTorch | Python / built-in | Python in Pacer / plain PyTorch |",
         "| --- | --- | --- | --- | --- | --- |"]
for w in sorted({r["workload"] for r in rows}):
    med = {who: statistics.median(r["seconds_per_step"] for r in rows if r["workload"] == w and r["who"] == who)
           for who in ("builtin", "python", "peer")}
    out["summary"][w] = dict(med, python_over_builtin=med["python"] / med["builtin"], python_over_peer=med["python"] / med["peer"])
    lines.append(f"| {w} | {med['builtin']*1e3:.2f} | {med['python']*1e3:.2f} | {med['peer']*1e3:.2f} | "
                 f"{med['python']/med['builtin']:.2f}x | {med['python']/med['peer']:.2f}x |")
json.dump(out, open(f"{sys.argv[2]}/python_submission.json", "w"), indent=1)
open(f"{sys.argv[2]}/python_submission.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
