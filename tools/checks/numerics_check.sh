#!/usr/bin/env bash
# Bit-identity of training numerics between two pacer executables: every built-in algorithm for
# 100 steps on two workloads (synthetic_regression and fmnist_mlp), evals at steps 1, 50 and 100,
# one thread, its default hyperparameters (and, for the update transforms the defaults leave idle,
# seven with weight decay and clipping set), a budget no run reaches (a slow moment must not end a
# run early: a time limit is not numerics); every metric of every eval row (times excluded) must be
# equal as written, digit for digit. A restructuring beside a running board proves itself with it
# against the board's frozen binary (docs/leaderboard.md), as issue 46 and 47 ask.
#
#   tools/checks/numerics_check.sh OLD_PACER NEW_PACER [OUT=/tmp/numerics_check]
#   e.g. tools/checks/numerics_check.sh runs/board_v2/pacer build/pacer
# Exit 0 when every run is identical; 1 naming each difference.
set -uo pipefail
old=${1:?usage: tools/checks/numerics_check.sh OLD_PACER NEW_PACER [OUT]}
new=${2:?usage: tools/checks/numerics_check.sh OLD_PACER NEW_PACER [OUT]}
out=${3:-/tmp/numerics_check}
rm -rf "$out"
mkdir -p "$out"
export PACER_IGNORE_LOAD=1
algorithms=$("$new" list algorithms --json | /usr/bin/python3 -c \
  "import json,sys; print(' '.join(a['name'] for a in json.load(sys.stdin)['algorithms']))")
differ=0
runs=0
# compare WORKLOAD ALGORITHM TAG [--set NAME=VALUE ...]: one run by each executable, then their evals.
compare() {
  local w=$1 a=$2 tag=$3
  shift 3
  for side in old new; do
    exe=$old; [ "$side" = new ] && exe=$new
    "$exe" run -w "$w" -a "$a" --seed 1 --max-steps 100 --budget 100000 --eval-every 50 --ignore-targets --threads 1 -q \
      "$@" --out "$out/$side/$w/$tag" > "$out/$side.$w.$tag.log" 2>&1 || echo "numerics_check: $side $w $tag failed (see $out/$side.$w.$tag.log)"
  done
  runs=$((runs + 1))
  # Every metric of every row equal as written, times left out, the same rows (one comparison for
  # the project: tools/analysis/same_measurements.py).
  if ! result=$(/usr/bin/python3 "$(dirname "$0")/../analysis/same_measurements.py" --whole "$out/old/$w/$tag" \
      "$out/new/$w/$tag" 2>&1); then
    echo "  $result"
    echo "numerics_check: $w x $tag DIFFERS"
    differ=$((differ + 1))
  fi
}
for w in synthetic_regression fmnist_mlp; do
  for a in $algorithms; do compare "$w" "$a" "$a"; done
  # The update transforms the defaults leave idle (weight decay 0, no clipping): L2 decay in the SGD
  # family and Adam, clipping that bites, and clipping before a decoupled decay.
  for a in sgd momentum nesterov adam; do
    compare "$w" "$a" "$a.decay_clip" --set weight_decay=0.001 --set grad_clip=0.05
  done
  for a in adamw lion sam; do compare "$w" "$a" "$a.clip" --set grad_clip=0.05; done
done
echo "numerics_check: $runs runs of $(basename "$new") against $(basename "$old"): $((runs - differ)) identical, $differ differ"
[ "$differ" -eq 0 ]
