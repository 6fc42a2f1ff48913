#!/usr/bin/env bash
# Two pacer builds, before and after, alternating in every cell: per-step submission time of
# fmnist_mlp, batch 4096, 100 steps, plain and K=8 virtual workers (mean, adasum), 1 and 2 threads.
#   ROUNDS=5 virtual_workers_wakeups_run.sh BEFORE_PACER AFTER_PACER OUT_DIR
#   python3 virtual_workers_wakeups_summary.py OUT_DIR 5   (writes OUT_DIR/summary.json)
set -euo pipefail
BEFORE=$1; AFTER=$2; OUT=$3; ROUNDS=${ROUNDS:-5}
for round in $(seq 1 $ROUNDS); do
  for threads in 1 2; do
    for mode in plain mean adasum; do
      for which in before after; do
        exe=$BEFORE; [[ $which == after ]] && exe=$AFTER
        extra=(); [[ $mode != plain ]] && extra=(--combine $mode --virtual-workers 8)
        dir=$OUT/$which/$mode-t$threads-$round; rm -rf $dir
        $exe run -w fmnist_mlp -a momentum --batch-size 4096 --max-steps 100 --eval-every 100 --ignore-targets --threads $threads -q "${extra[@]}" --out $dir >/dev/null
      done
    done
  done
done
