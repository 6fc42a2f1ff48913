#!/usr/bin/env bash
# Pacer's own leaderboard: every built-in training algorithm tuned under the external-tuning
# ruleset (its shipped search space, STUDIES x TRIALS quasi-random trials per workload) and run
# under the self-tuning ruleset (its defaults), on WORKLOADS, then scored with `pacer score` on
# both time axes. A second external run with other seeds (--seed/--sampler-seed 1) measures how
# stable the ranking is. Every run goes through a study store, so an interrupted sequence resumes
# where it stopped when started again. Writes OUT/{external,external_seed1,self}.db and the score
# folders OUT/score_{external,external_steps,external_seed1,self}.
#
#   tools/analysis/leaderboard.sh [BUILD_DIR=build] [OUT=runs/leaderboard]
#   env: WORKLOADS ("fmnist_mlp synthetic_regression"; the full benchmark is "--suite small"),
#        STUDIES (3), TRIALS (5), WORKERS (2), THREADS (1), ALGORITHMS (all of `pacer list`)
set -euo pipefail
BUILD_DIR=${1:-build}
OUT=${2:-runs/leaderboard}
WORKLOADS=${WORKLOADS:-fmnist_mlp synthetic_regression}
STUDIES=${STUDIES:-3}
TRIALS=${TRIALS:-5}
WORKERS=${WORKERS:-2}
THREADS=${THREADS:-1}
PACER=$BUILD_DIR/pacer
[[ -x $PACER ]] || { echo "leaderboard.sh: $PACER not found; build it first" >&2; exit 2; }
if [[ -z ${ALGORITHMS:-} ]]; then
  ALGORITHMS=$("$PACER" list | awk '/^Algorithms/{on=1; next} /^[A-Z]/{on=0} on && $0 ~ /^  [a-z]/ {print $1}' | tr '\n' ' ')
fi
workload_args=()
if [[ $WORKLOADS == --suite* ]]; then read -r -a workload_args <<<"$WORKLOADS"; else
  for w in $WORKLOADS; do workload_args+=(-w "$w"); done
fi
mkdir -p "$OUT"
common=(--studies "$STUDIES" --workers "$WORKERS" --threads "$THREADS")
# A space given as a list of points (spaces/shampoo.json: the AlgoPerf submission's) is sampled
# with --sampler list, a dict space with the reference quasi-random search.
sampler_for() { if /usr/bin/env python3 -c 'import json,sys; sys.exit(0 if isinstance(json.load(open(sys.argv[1])), list) else 1)' "$1"; then echo list; else echo halton; fi; }
# Ruleset-major, so that an interrupted sequence leaves whole leaderboards behind.
for a in $ALGORITHMS; do
  echo "== external (seed 0): $a" >&2
  "$PACER" tune "${workload_args[@]}" -a "$a" --space "spaces/$a.json" --sampler "$(sampler_for "spaces/$a.json")" \
    --trials "$TRIALS" "${common[@]}" --store "$OUT/external.db" -q
done
for a in $ALGORITHMS; do
  echo "== self-tuning: $a" >&2
  "$PACER" tune "${workload_args[@]}" -a "$a" --ruleset self "${common[@]}" --store "$OUT/self.db" -q
done
for a in $ALGORITHMS; do
  echo "== external (seed 1): $a" >&2
  "$PACER" tune "${workload_args[@]}" -a "$a" --space "spaces/$a.json" --sampler "$(sampler_for "spaces/$a.json")" \
    --trials "$TRIALS" "${common[@]}" --seed 1 --sampler-seed 1 --store "$OUT/external_seed1.db" -q
done
"$PACER" score "$OUT/external.db" --out "$OUT/score_external"
"$PACER" score "$OUT/external.db" --time steps --out "$OUT/score_external_steps"
"$PACER" score "$OUT/external_seed1.db" --out "$OUT/score_external_seed1"
"$PACER" score "$OUT/self.db" --self-tuning --out "$OUT/score_self"
