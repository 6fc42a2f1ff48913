#!/usr/bin/env bash
# Virtual workers as threads (the frozen pacer of b8aa80c) against fibers (b8aa80c with 404a6b2's
# communicator), per step of `pacer run` on fmnist_mlp at batch 4096, plain and K virtual workers
# with the mean and with Adasum, one intra-op thread, submission time on the process's CPU clock
# (--clock cpu: other jobs on the machine barely bend it), the two binaries interleaved, 3 rounds.
# Prints the median ms per step (min-max) and the ratio to the plain step of the same binary.
#   docs/results/bench_data_parallel/fibers_vs_threads_steps.sh OLD_PACER NEW_PACER K SCRATCH
set -euo pipefail
OLD=$1 NEW=$2 K=$3 SCRATCH=$4
mkdir -p "$SCRATCH"
for round in 1 2 3; do
  for mode in plain mean adasum; do
    for which in old new; do
      p=$OLD; [[ $which == new ]] && p=$NEW
      extra=(); [[ $mode != plain ]] && extra=(--combine "$mode" --virtual-workers "$K")
      d=$SCRATCH/$mode-$which-$round; rm -rf "$d"
      "$p" run -w fmnist_mlp -a momentum --batch-size 4096 --max-steps 100 --eval-every 100 --ignore-targets \
        --threads 1 --clock cpu -q "${extra[@]}" --out "$d" > /dev/null
    done
  done
done
/usr/bin/python3 - "$SCRATCH" "$K" <<'PY'
import json, statistics, sys
scratch, k = sys.argv[1], sys.argv[2]
ms = {}
for mode in ("plain", "mean", "adasum"):
    for which in ("old", "new"):
        ms[mode, which] = [1000 * t["accumulated_submission_time"] / t["steps"]
                           for t in (json.load(open(f"{scratch}/{mode}-{which}-{r}/trial.json")) for r in (1, 2, 3))]
print(f"K={k}, batch 4096, 100 steps, 1 thread, cpu clock, ms per step: median (min-max), x the plain step")
for which, name in (("old", "threads (frozen b8aa80c)"), ("new", "fibers")):
    base = statistics.median(ms["plain", which])
    print(f"{name}: " + "; ".join(f"{m} {statistics.median(ms[m, which]):.1f} ({min(ms[m, which]):.1f}-{max(ms[m, which]):.1f}) "
                                   f"x{statistics.median(ms[m, which]) / base:.2f}" for m in ("plain", "mean", "adasum")))
PY
