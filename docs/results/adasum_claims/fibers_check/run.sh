#!/usr/bin/env bash
# Issue 62's execution change of 2026-12-07 (docs/data_parallel.md, "The experiment"): the frozen
# binaries of b8aa80c against the same commit with virtual workers as fibers (404a6b2's
# communicator, applied to b8aa80c), on the same machine: every measured column must be the same.
#   docs/results/adasum_claims/fibers_check/run.sh FROZEN_PACER CANDIDATE_PACER SCRATCH > summary.txt
# (1) 16 steps at batch 16,384 over 256 virtual workers, each optimizer with each combiner, both
#     binaries; (2) replication seeds of the experiment run again with the candidate, against the
#     seeds the frozen binary wrote on this machine (committed under experiment/).
set -u
OLD=${1:?usage: run.sh FROZEN_PACER CANDIDATE_PACER SCRATCH}
NEW=${2:?usage: run.sh FROZEN_PACER CANDIDATE_PACER SCRATCH}
SCRATCH=${3:?usage: run.sh FROZEN_PACER CANDIDATE_PACER SCRATCH}
cd "$(dirname "$0")/../../../.."
EXP=docs/results/adasum_claims/experiment
mkdir -p "$SCRATCH/short" "$SCRATCH/replicated"
pairs=()
echo "# (1) 16 steps at 16384 over 256 virtual workers: CPU seconds (user + system) of each binary"
for o in momentum lamb adam; do
  for series in mean adasum adasum-delta; do
    mode=gradient combine=$series
    [[ $series == adasum-delta ]] && mode=delta combine=adasum
    for which in old new; do
      p=$OLD; [[ $which == new ]] && p=$NEW
      out=$SCRATCH/short/$o-$series-$which
      rm -rf "$out"
      /usr/bin/time -f "%U %S" -o "$out.time" "$p" run -w fmnist_mlp -a "$o" --batch-size 16384 --virtual-workers 256 \
        --combine "$combine" --adasum-mode "$mode" --max-steps 16 --eval-every 4 --eval-splits validation \
        --ignore-targets --threads 1 -q --budget 1e9 --out "$out" > /dev/null || echo "$o $series $which: exit $?"
    done
    echo "$o+$series: frozen $(awk '{print $1 + $2}' "$SCRATCH/short/$o-$series-old.time") s, fibers $(awk '{print $1 + $2}' "$SCRATCH/short/$o-$series-new.time") s"
    pairs+=("$SCRATCH/short/$o-$series-old" "$SCRATCH/short/$o-$series-new")
  done
done
echo "# (2) replication seeds again with the candidate (stopped at the goal)"
replicate() {  # replicate OPTIMIZER SERIES BATCH SEEDS
  local dir=$EXP/$1/$2 out=$SCRATCH/replicated/$1-$2
  tools/analysis/replicate_best.py "$dir" --pacer "$NEW" --worker-batch 64 --seeds "$4" --eval-every 0 --resolution 100 \
    --max-steps 2000 --stop-at-goal --only-batch-sizes "$3" --out "$out" > /dev/null 2> "$out.log" ||
    echo "replication $1 $2 $3: exit $?"
  local s
  for ((s = 1; s <= $4; s++)); do
    pairs+=("$dir/replicated/$1+$2@b$3/seed_$s" "$out/$1+$2@b$3/seed_$s")
  done
}
replicate lamb adasum 16384 2
replicate lamb mean 8192 1
replicate momentum adasum-delta 2048 1
replicate adam mean 16384 2
echo "# comparison (tools/analysis/same_measurements.py)"
tools/analysis/same_measurements.py "${pairs[@]}" | sed "s|$SCRATCH/||g"
