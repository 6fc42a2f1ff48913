#!/usr/bin/env bash
# Issue 62, items 2-4: Adasum's claims on fmnist_mlp (docs/data_parallel.md, "The experiment").
# For momentum, LAMB and Adam and for each combiner (the mean; Adasum of gradients; Adasum of the
# workers' optimizer steps, Horovod's DistributedOptimizer(op=Adasum)): `pacer scale` with 64
# examples per virtual worker from batch 128 to 16384, each batch size retuned (8 quasi-random
# points, racing), then the best point of each batch size trained again with 5 seeds
# (tools/analysis/replicate_best.py, evals every 1% of its steps, each seed stopped once its evals
# cross the goal: --stop-at-goal, since 2026-12-07, docs/data_parallel.md). Two jobs at a time, one thread
# each; resumable: run it again and it goes on where it stopped (finished studies and seeds are
# read, not rerun). tools/analysis/adasum_claims.py OUT then gives the verdicts.
#   Usage: adasum_claims.sh PACER OUT [JOBS]
set -u
P=${1:?usage: adasum_claims.sh PACER OUT [JOBS]}
OUT=${2:?usage: adasum_claims.sh PACER OUT [JOBS]}
JOBS=${3:-2}
GOAL=0.88
MAX_STEPS=2000
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
job() {  # job OPTIMIZER SERIES
  local o=$1 series=$2 dir="$OUT/$1/$2" combine
  case $series in
    mean) combine=(--combine mean) ;;
    adasum) combine=(--combine adasum) ;;
    adasum-delta) combine=(--combine adasum --adasum-mode delta) ;;
  esac
  mkdir -p "$dir"
  echo "$(date -u +%FT%TZ) start $o $series"
  "$P" scale -w fmnist_mlp -a "$o" --space "spaces/adasum_claims/$o.json" "${combine[@]}" --worker-batch 64 \
    --batch-sizes 128:16384 --trials 8 --max-steps $MAX_STEPS --evals 40 --eval-spacing log --goal $GOAL --race \
    --seed 62 --sampler-seed 62 --threads 1 -q --store "$dir/scale.db" --out "$dir" > "$dir/scale.log" 2>&1 ||
    { local rc=$?; echo "$(date -u +%FT%TZ) $o $series: pacer scale exited $rc (see $dir/scale.log)"; return 1; }
  tools/analysis/replicate_best.py "$dir" --pacer "$P" --worker-batch 64 --seeds 5 --eval-every 0 --resolution 100 \
    --max-steps $MAX_STEPS --stop-at-goal --out "$dir/replicated" > "$dir/replicated.md" 2> "$dir/replicated.log" ||
    { local rc=$?; echo "$(date -u +%FT%TZ) $o $series: replication exited $rc (see $dir/replicated.log)"; return 1; }
  echo "$(date -u +%FT%TZ) done $o $series"
}
export -f job
export P OUT GOAL MAX_STEPS
for o in momentum lamb adam; do for s in mean adasum adasum-delta; do echo "$o $s"; done; done |
  xargs -P "$JOBS" -L 1 bash -c 'job $0 $1'
