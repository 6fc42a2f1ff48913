#!/usr/bin/env bash
# Data-parallel costs, each measured against its peer in the same run:
#  (1) one Adasum reduction vs one mean allreduce of the same buffers (256K, 1M, 10M, 50M floats in
#      transformer-shaped tensors), P local processes over c10d Gloo (bench_adasum_allreduce under
#      `pacer launch`). Goal (issue 62): Adasum median <= 1.2x the mean allreduce median.
#  (2) the overhead of K virtual workers: the submission time per step of `pacer run` on
#      fmnist_mlp at one global batch, plain vs --virtual-workers K with --combine mean and adasum,
#      at each intra-op thread count of THREADS, runs interleaved over ROUNDS rounds. Goals: K
#      virtual workers <= 1.2x one big-batch step; 2 threads never > 1.1x the time of 1 thread.
#  (3) the combine of those K virtual workers alone (bench_in_process_combine: a bare barrier, mean,
#      Adasum on fmnist_mlp's tensor sizes), at each thread count: how much of (2)'s overhead is
#      the combine, and how much the K smaller forward and backward passes.
#
#   bench/data_parallel/data_parallel.sh [BUILD_DIR=build] [OUT_DIR=runs/bench-dp]
#   env: PROCESSES (4), SIZES (256K,1M,10M,50M), K (8), BATCH (4096), STEPS (100), ROUNDS (3),
#        THREADS ("1 2"), SKIP_COLLECTIVES (0; 1: part (2) only)
set -euo pipefail
BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench-dp}
PROCESSES=${PROCESSES:-4}
SIZES=${SIZES:-256K,1M,10M,50M}
K=${K:-8}
BATCH=${BATCH:-4096}
STEPS=${STEPS:-100}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-1 2}
SKIP_COLLECTIVES=${SKIP_COLLECTIVES:-0}
PACER=$BUILD_DIR/pacer
BENCH=$BUILD_DIR/bench/bench_adasum_allreduce
COMBINE=$BUILD_DIR/bench/bench_in_process_combine
for exe in "$PACER" "$BENCH" "$COMBINE"; do
  [[ -x $exe ]] || { echo "data_parallel.sh: $exe not found; build it first" >&2; exit 2; }
done
mkdir -p "$OUT_DIR"

if [[ $SKIP_COLLECTIVES != 1 ]]; then
  echo "== (1) Adasum vs mean allreduce, $PROCESSES processes over Gloo"
  "$PACER" launch -n "$PROCESSES" -- "$BENCH" --sizes "$SIZES" --json "$OUT_DIR/collectives.json"
fi

echo "== (2) virtual workers: fmnist_mlp, global batch $BATCH, $STEPS steps, K=$K, threads $THREADS, $ROUNDS rounds"
for round in $(seq 1 "$ROUNDS"); do
  for threads in $THREADS; do
    for mode in plain mean adasum; do
      extra=()
      [[ $mode != plain ]] && extra=(--combine "$mode" --virtual-workers "$K")
      dir="$OUT_DIR/vw/$mode-t$threads-$round"
      rm -rf "$dir"
      "$PACER" run -w fmnist_mlp -a momentum --batch-size "$BATCH" --max-steps "$STEPS" --eval-every "$STEPS" \
        --ignore-targets --threads "$threads" -q "${extra[@]}" --out "$dir" >/dev/null
    done
  done
done

echo "== (3) the combine alone, K=$K"
for threads in $THREADS; do
  "$COMBINE" --workers "$K" --threads "$threads" --reps 600 | tee "$OUT_DIR/combine-t$threads.txt"
done

/usr/bin/python3 - "$OUT_DIR" "$ROUNDS" "$K" "$BATCH" "$THREADS" <<'PY'
import json, os, statistics, sys
out, rounds, k, batch = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
threads = sys.argv[5].split()
summary = {}
for t in threads:
    per_step = {}
    for mode in ("plain", "mean", "adasum"):
        for r in range(1, rounds + 1):
            trial = json.load(open(f"{out}/vw/{mode}-t{t}-{r}/trial.json"))
            per_step.setdefault(mode, []).append(1e3 * trial["accumulated_submission_time"] / trial["steps"])
    s = {m: {"min": min(v), "median": statistics.median(v), "max": max(v)} for m, v in per_step.items()}
    for m in ("mean", "adasum"):
        s[m]["ratio_to_plain_median"] = s[m]["median"] / s["plain"]["median"]
    summary[t] = s
print(f"per-step submission time, ms (min / median / max over {rounds} rounds), global batch {batch}, K={k}:")
for t, s in summary.items():
    print(f" {t} thread(s):")
    for m, v in s.items():
        extra = f"  x{v['ratio_to_plain_median']:.3f} of one big-batch step (goal <= 1.2)" if "ratio_to_plain_median" in v else ""
        print(f"  {m:7s} {v['min']:8.2f} {v['median']:8.2f} {v['max']:8.2f}{extra}")
if "1" in summary and "2" in summary:
    print(" 2 threads / 1 thread (medians; goal <= 1.1):")
    for m in ("plain", "mean", "adasum"):
        r = summary["2"][m]["median"] / summary["1"][m]["median"]
        summary.setdefault("two_over_one", {})[m] = r
        print(f"  {m:7s} {r:.3f}")
json.dump({"batch_size": int(batch), "virtual_workers": int(k), "per_step_ms_by_threads": summary},
          open(f"{out}/virtual_workers.json", "w"), indent=2)
if not os.path.exists(f"{out}/collectives.json"):
    sys.exit(0)
col = json.load(open(f"{out}/collectives.json"))
print(f"Adasum / mean allreduce (medians), {col['processes']} processes over {col['backend']}:")
for row in col["rows"]:
    print(f"  {row['floats']:>10d} floats: {row['ratio_median']:.3f} (goal <= 1.2)")
PY
