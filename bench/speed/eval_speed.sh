#!/usr/bin/env bash
# Eval-speed benchmark: one eval of fmnist_cnn's three splits (train-eval, validation, test:
# 30,000 images, ~0.83 TFLOP of forward convolutions and products) by `pacer run` against the
# same eval in PyTorch Python (bench/speed/eval_peer.py: same model, data, batch size, threads,
# inference mode), interleaved over ROUNDS rounds (order alternating). The peer runs twice per
# round: with glibc's default malloc, and with the heap settings Pacer applies to itself
# (src/core/heap_allocator.cpp; through MALLOC_*_ env), the strongest peer. Also measures this
# machine's fp32 matmul peak at the same thread count (bench/speed/matmul_peak.py) and reports the
# FLOP-bound time of the eval and each program's achieved GFLOP/s. Builds nothing.
#
#   bench/speed/eval_speed.sh [BUILD_DIR=build] [OUT_DIR=runs/bench]
#   env: THREADS (2), ROUNDS (3), BATCH (1000, Pacer's eval batch for fmnist_cnn), PYTHON (/usr/bin/python3)
#
# Pacer's eval time comes from trial.json/eval_measurements.csv of `pacer run --max-steps 2
# --eval-every 1` (evals at steps 1 and 2): the first eval is cold (allocations, oneDNN
# primitives), the second warm; the peer times warm evals after one untimed one. Writes
# OUT_DIR/eval_speed_t<THREADS>.json and prints a table.
set -euo pipefail

BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench}
THREADS=${THREADS:-2}
ROUNDS=${ROUNDS:-3}
BATCH=${BATCH:-1000}
PYTHON=${PYTHON:-/usr/bin/python3}
export OPENBLAS_NUM_THREADS=$THREADS  # torch.set_num_threads does not size OpenBLAS's pool
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PACER=$BUILD_DIR/pacer
[[ -x $PACER ]] || { echo "eval_speed.sh: $PACER not found; build it first" >&2; exit 2; }
"$PYTHON" -c 'import torch, numpy' 2>/dev/null || { echo "eval_speed.sh: $PYTHON lacks torch or numpy" >&2; exit 2; }

mkdir -p "$OUT_DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RAW=$TMP/raw.jsonl
: >"$RAW"

echo "matmul peak at $THREADS thread(s)..." >&2
"$PYTHON" "$HERE/matmul_peak.py" --threads "$THREADS" >"$TMP/peak.json"

run_pacer() {  # round
  local out=$TMP/pacer_$1
  "$PACER" run -w fmnist_cnn -a nadamw --seed 1 --max-steps 2 --eval-every 1 --ignore-targets \
    --threads "$THREADS" -q --out "$out" >/dev/null
  "$PYTHON" - "$out" "$1" >>"$RAW" <<'PY'
import csv, json, sys
out, rnd = sys.argv[1], int(sys.argv[2])
rows = list(csv.DictReader(open(out + "/eval_measurements.csv")))
t = [float(r["accumulated_eval_time"]) for r in rows]
# validation and test log num_examples; the train-eval split is fmnist_cnn's first 10,000 images.
assert "train/accuracy" in rows[0], "pacer did not evaluate the train split"
images = 10000 + sum(float(rows[0][k]) for k in ("validation/num_examples", "test/num_examples"))
print(json.dumps({"impl": "pacer", "round": rnd, "images": images, "cold_seconds": t[0], "seconds": t[1] - t[0]}))
PY
}
run_peer() {  # round impl [env...]
  local rnd=$1 impl=$2
  shift 2
  env "$@" "$PYTHON" "$HERE/eval_peer.py" --threads "$THREADS" --batch-size "$BATCH" --reps 1 |
    "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); print(json.dumps({"impl": sys.argv[2], "round": int(sys.argv[1]), "images": r["images"], "seconds": r["best_seconds"]}))' "$rnd" "$impl" >>"$RAW"
}
peer_default() { run_peer "$1" pytorch_python; }
peer_heap() {
  run_peer "$1" pytorch_python_heap MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_TOP_PAD_=67108864
}

for ((r = 1; r <= ROUNDS; ++r)); do
  if ((r % 2)); then order=(run_pacer peer_heap peer_default); else order=(peer_default peer_heap run_pacer); fi
  for p in "${order[@]}"; do
    echo "round $r/$ROUNDS: $p" >&2
    "$p" "$r"
  done
done

"$PYTHON" - "$RAW" "$TMP/peak.json" "$OUT_DIR" "$THREADS" "$ROUNDS" "$BATCH" <<'PY'
import json, os, statistics, sys, time
raw, peak_file, out_dir, threads, rounds, batch = sys.argv[1:7]
runs = [json.loads(l) for l in open(raw)]
peak = json.load(open(peak_file))["gflops"]
# Forward MACs per image: conv1 28*28*32*25, conv2 14*14*64*32*25, dense 3136*1024, output 1024*10.
flops_per_image = 2 * (28 * 28 * 32 * 25 + 14 * 14 * 64 * 32 * 25 + 3136 * 1024 + 1024 * 10)
impls = ["pacer", "pytorch_python_heap", "pytorch_python"]
res = {"workload": "fmnist_cnn", "threads": int(threads), "rounds": int(rounds), "batch_size": int(batch),
       "matmul_peak_gflops": peak, "flops_per_image": flops_per_image,
       "date": time.strftime("%Y-%m-%d"), "load_average": os.getloadavg()[0], "impl": {}}
images = runs[0]["images"]
assert all(r["images"] == images for r in runs), "the programs evaluated different numbers of images"
res["images"] = images
res["flop_bound_seconds"] = images * flops_per_image / (peak * 1e9)
for impl in impls:
    xs = [r["seconds"] for r in runs if r["impl"] == impl]
    med = statistics.median(xs)
    res["impl"][impl] = {"seconds": xs, "min": min(xs), "median": med, "max": max(xs),
                         "images_per_second": images / med, "gflops": images * flops_per_image / med / 1e9,
                         "x_flop_bound": med / res["flop_bound_seconds"]}
cold = [r["cold_seconds"] for r in runs if r["impl"] == "pacer"]
res["impl"]["pacer"]["cold_median"] = statistics.median(cold)
res["ratio_pacer_over_pytorch_heap"] = res["impl"]["pacer"]["median"] / res["impl"]["pytorch_python_heap"]["median"]
res["ratio_pacer_over_pytorch_default"] = res["impl"]["pacer"]["median"] / res["impl"]["pytorch_python"]["median"]
path = os.path.join(out_dir, f"eval_speed_t{threads}.json")
json.dump(res, open(path, "w"), indent=2)
print(f"fmnist_cnn eval, {images:.0f} images, {threads} threads, batch {batch}, {rounds} rounds; "
      f"matmul peak {peak:.1f} GFLOP/s -> FLOP-bound {res['flop_bound_seconds']:.2f} s")
print(f"| program | s/eval min / median / max | images/s | GFLOP/s (% peak) | x FLOP-bound |")
print(f"| --- | --- | --- | --- | --- |")
for impl in impls:
    r = res["impl"][impl]
    print(f"| {impl} | {r['min']:.2f} / {r['median']:.2f} / {r['max']:.2f} | {r['images_per_second']:.0f} | "
          f"{r['gflops']:.1f} ({100 * r['gflops'] / peak:.0f}%) | {r['x_flop_bound']:.2f} |")
print(f"pacer cold first eval (median): {res['impl']['pacer']['cold_median']:.2f} s")
print(f"ratio pacer / pytorch (same heap settings): {res['ratio_pacer_over_pytorch_heap']:.2f}; "
      f"/ pytorch (default malloc): {res['ratio_pacer_over_pytorch_default']:.2f}")
print(f"written: {path}")
PY
