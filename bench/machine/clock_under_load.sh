#!/usr/bin/env bash
# How much other work on the machine bends a trial's measured time, under each clock: the same
# trials (1 thread, fixed seed, evals every N steps so that every run reaches its target at the
# same step) run alone, beside one busy loop, and beside a compile of Pacer (ninja -j 2 rebuilding
# a layer over and over), each with --clock wall and --clock cpu interleaved. Reports the median,
# the coefficient of variation and the ratio to the quiet median of the time to target.
# Goals for the cpu clock: under load, median within 10% of the quiet one and CV <= 5%; on a quiet
# machine, cpu and wall agree within 3%.
#
#   bench/machine/clock_under_load.sh [BUILD_DIR=build] [OUT_DIR=runs/bench-clock]
#   env: ROUNDS (5, fmnist_mlp), RESNET_ROUNDS (3, fmnist_resnet), LOADS ("alone busy compile"),
#        WORKLOADS ("fmnist_mlp fmnist_resnet"), SUMMARY_ONLY (0; 1: summarize the runs under OUT_DIR/runs)
set -euo pipefail
BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench-clock}
ROUNDS=${ROUNDS:-5}
RESNET_ROUNDS=${RESNET_ROUNDS:-3}
LOADS=${LOADS:-alone busy compile}
WORKLOADS=${WORKLOADS:-fmnist_mlp fmnist_resnet}
PACER=$BUILD_DIR/pacer
[[ -x $PACER ]] || { echo "clock_under_load.sh: $PACER not found; build it first" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)
# NAdamW's calibrated point that reaches fmnist_resnet's target (spaces/nadamw_points.json, 4th).
python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))[3], open(sys.argv[2],'w'))" \
  "$ROOT/spaces/nadamw_points.json" "$OUT_DIR/resnet_point.json"

load_pid=""
stop_load() {
  if [[ -n $load_pid ]]; then
    kill -- -"$load_pid" 2>/dev/null || kill "$load_pid" 2>/dev/null || true
    wait "$load_pid" 2>/dev/null || true
    load_pid=""
  fi
}
trap stop_load EXIT
start_load() {
  case $1 in
    alone) ;;
    busy) setsid bash -c 'while :; do :; done' & load_pid=$! ;;
    compile)
      # A compile of Pacer: the models layer (ten LibTorch sources, no precompiled headers) built
      # with ninja -j 2, cleaned and built again until stopped.
      if [[ ! -f $OUT_DIR/compile-load/build.ninja ]]; then
        cmake -S "$ROOT" -B "$OUT_DIR/compile-load" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPACER_PCH=OFF \
          -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF >/dev/null
      fi
      setsid bash -c "while :; do ninja -C '$OUT_DIR/compile-load' -j 2 pacer_models >/dev/null 2>&1; \
                      ninja -C '$OUT_DIR/compile-load' -t clean pacer_models >/dev/null 2>&1; done" &
      load_pid=$!
      sleep 5 ;;
    *) echo "clock_under_load.sh: unknown load '$1' (alone, busy, compile)" >&2; exit 2 ;;
  esac
}

run_trial() {  # workload load clock round
  local w=$1 load=$2 clock=$3 round=$4 dir="$OUT_DIR/runs/$1/$2-$3-$4" args=()
  rm -rf "$dir"
  if [[ $w == fmnist_mlp ]]; then
    args=(-a nadamw --eval-every 50)
  else
    args=(-a nadamw --hparams "$OUT_DIR/resnet_point.json" --eval-every 100)
  fi
  # A large budget: under load the wall clock would otherwise run out before the target.
  "$PACER" run -w "$w" "${args[@]}" --seed 1 --threads 1 --budget 100000 --clock "$clock" -q --out "$dir" >/dev/null
}

for w in $WORKLOADS; do
  [[ ${SUMMARY_ONLY:-0} == 1 ]] && break
  rounds=$ROUNDS
  [[ $w == fmnist_resnet ]] && rounds=$RESNET_ROUNDS
  for load in $LOADS; do
    echo "== $w, $load, $rounds rounds of wall + cpu"
    start_load "$load"
    for round in $(seq 1 "$rounds"); do
      for clock in wall cpu; do run_trial "$w" "$load" "$clock" "$round"; done
    done
    stop_load
  done
done

python3 - "$OUT_DIR" "$WORKLOADS" "$LOADS" <<'PY'
import glob, json, os, statistics, sys
out, workloads, loads = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
rows, summary = [], {}
for w in workloads:
    for load in loads:
        for clock in ("wall", "cpu"):
            times, steps = [], set()
            for path in sorted(glob.glob(f"{out}/runs/{w}/{load}-{clock}-*/trial.json")):
                t = json.load(open(path))
                if t.get("time_to_target") is None:
                    sys.exit(f"{path}: the target was not reached; the benchmark needs trials that reach it")
                times.append(t["time_to_target"])
                steps.add(t["steps_to_target"])
            if not times:
                continue
            med = statistics.median(times)
            cv = statistics.pstdev(times) / statistics.mean(times)
            summary.setdefault(w, {}).setdefault(load, {})[clock] = {
                "n": len(times), "median": med, "min": min(times), "max": max(times), "cv": cv,
                "steps_to_target": sorted(steps), "times": times}
print("time to target, s: median (min - max), coefficient of variation, median / quiet median")
for w, by_load in summary.items():
    quiet = by_load.get("alone", {})
    for load, by_clock in by_load.items():
        for clock, s in by_clock.items():
            ratio = s["median"] / quiet[clock]["median"] if clock in quiet else float("nan")
            s["ratio_to_alone"] = ratio
            print(f"  {w:14s} {load:8s} {clock:5s} {s['median']:8.3f} ({s['min']:.3f} - {s['max']:.3f})"
                  f"  cv {100 * s['cv']:5.1f}%  x{ratio:.3f}  steps {s['steps_to_target']}  n={s['n']}")
    if "wall" in quiet and "cpu" in quiet:
        agree = quiet["cpu"]["median"] / quiet["wall"]["median"]
        by_load["alone"]["cpu_over_wall"] = agree
        print(f"  {w:14s} alone: cpu / wall medians {agree:.3f} (goal within 3%)")
json.dump(summary, open(f"{out}/clock_under_load.json", "w"), indent=2)
print(f"wrote {out}/clock_under_load.json")
PY
