#!/usr/bin/env bash
# Issue 47's GPU check (docs/gpu.md), in ONE call on a lent GPU machine, from the repository root,
# with the packed dependencies carried (tools/gpu/pack_device_deps.sh here first):
#
#   device tool: run  command="tools/gpu/gpu_check.sh"  carry=[".devcarry"]  timeout_s=600
#
# Phases, each logged and timed, each item skipped (and said so) when the time left is short:
#   1. build `pacer` against the machine's pip LibTorch with `make test TORCH=pip`'s recipe
#      (CMAKE_PREFIX_PATH: its torch's cmake_prefix_path, then .devcarry/prefix; Python3_EXECUTABLE:
#      that torch's Python; no PostgreSQL, no serve: the device cannot install them); on failure the
#      compiler's errors go to build_errors.txt
#   2-4. what must work, PARALLEL commands at a time on the one GPU (nothing here is timed): every
#      board workload with NAdamW for STEPS steps, every built-in algorithm for ALGO_STEPS steps on
#      fmnist_mlp, `pacer check` (deterministic kernels) for nadamw and sgd
#   5. the default job (`pacer run -w fmnist_mlp -a nadamw --seed 1`) on the GPU, alone: time to target
#   6. step time against PyTorch eager (AdamW foreach), alone, interleaved, two rounds per
#      configuration (CONFIGS: fmnist_resnet and fortunes_lm at batch 1024, then 128); then
#      torch.compile once per configuration (bench/speed/workload_peers.py --device [--compile])
# Results: $OUT/gpu_check.json (every item: status, seconds, figures), $OUT/gpu_check.log, and every
# item's log and output packed in $OUT/runs.tar.gz (the device tool brings back 8 files at most).
# The script stops itself BUDGET seconds after its start: give the call about 40 s more.
# A dry run of the plumbing on a CPU machine (no build, an existing pacer):
#   DEVICE=cpu PACER=build/pacer PYTHON=/usr/bin/python3 STEPS=10 ALGO_STEPS=4 PEER_STEPS=3 \
#     CONFIGS="fmnist_resnet:128" OUT=/tmp/gc tools/gpu/gpu_check.sh
set -uo pipefail
OUT=${OUT:-runs/gpu_check}
mkdir -p "$OUT"
DEVICE=${DEVICE:-cuda}
STEPS=${STEPS:-300}
ALGO_STEPS=${ALGO_STEPS:-100}
PEER_STEPS=${PEER_STEPS:-200}
BUDGET=${BUDGET:-560}  # seconds this script may use in all (the call's limit leaves a margin)
PARALLEL=${PARALLEL:-4}
RUNS=${RUNS:-$(mktemp -d)}
PY=${PYTHON:-$(command -v python3)}
JOBS=${JOBS:-$(nproc)}
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$OUT/gpu_check.log"; }
# record PHASE STATUS SECONDS [JSON fields without braces]
record() { echo "{\"phase\": \"$1\", \"status\": \"$2\", \"seconds\": $3${4:+, $4}}" >> "$RESULTS"; }
time_left() { [ $((BUDGET - SECONDS)) -gt "$1" ]; }
# Seconds left for one command (at least 5): every command runs under `timeout`, so the script ends
# near BUDGET even when a command hangs.
remaining() { local r=$((BUDGET - SECONDS)); echo $((r > 5 ? r : 5)); }

log "machine: $(nvidia-smi -L 2>/dev/null | head -1 || echo 'no nvidia-smi') $(nproc) cores"
"$PY" -c "import torch, sys; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'available', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '', 'cxx11_abi', torch._C._GLIBCXX_USE_CXX11_ABI)" 2>&1 | tee -a "$OUT/gpu_check.log"
# What the build needs besides the carried folder: a CUDA LibTorch's CMake config asks for the CUDA
# toolkit (nvcc), and the build uses ninja; a wheel with the old C++ ABI (cxx11_abi False, torch
# before 2.7) cannot link with the layers built here with the default one. Said up front.
log "toolchain: cmake $(cmake --version 2>/dev/null | head -1 | awk '{print $3}'), ninja $(ninja --version 2>/dev/null || echo MISSING), nvcc $( (command -v nvcc || ls /usr/local/cuda/bin/nvcc) 2>/dev/null || echo MISSING), $(c++ --version 2>/dev/null | head -1)"
export CUDACXX=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export PACER_DATA_DIR=${PACER_DATA_DIR:-$PWD/.devcarry/data/fashion-mnist}
export PACER_FORTUNES_DIR=${PACER_FORTUNES_DIR:-$PWD/.devcarry/data/fortunes}
[ -d "$PACER_DATA_DIR" ] || PACER_DATA_DIR=/usr/share/datasets/fashion-mnist
[ -d "$PACER_FORTUNES_DIR" ] || PACER_FORTUNES_DIR=/usr/share/games/fortunes

# 1. Build.
start=$SECONDS
if [ -n "${PACER:-}" ]; then
  P=$PACER
  record build skipped 0 "\"reason\": \"PACER=$PACER given\""
else
  P=build-gpu/pacer
  TORCH_DIR=$("$PY" -c "import torch; print(torch.utils.cmake_prefix_path)")
  log "build: configure against $TORCH_DIR"
  if cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_PREFIX_PATH="$TORCH_DIR;$PWD/.devcarry/prefix" -DPython3_EXECUTABLE="$PY" \
       -DPACER_WITH_POSTGRES=OFF -DPACER_WITH_SERVE=OFF \
       -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF > "$OUT/configure.log" 2>&1 &&
     timeout $((BUDGET - 90)) cmake --build build-gpu -j "$JOBS" --target pacer_cli -- -k 0 > "$OUT/build.log" 2>&1; then
    record build ok $((SECONDS - start))
    log "build: ok in $((SECONDS - start)) s"
  else
    grep -E "error|Error" "$OUT/configure.log" "$OUT/build.log" | head -200 > "$OUT/build_errors.txt"
    record build failed $((SECONDS - start)) "\"errors\": $(wc -l < "$OUT/build_errors.txt")"
    log "build: FAILED after $((SECONDS - start)) s; first errors:"; head -20 "$OUT/build_errors.txt"
    "$PY" -c "import json; print(json.dumps([json.loads(l) for l in open('$RESULTS')], indent=1))" > "$OUT/gpu_check.json"
    exit 1
  fi
fi

# Per-item logs and outputs go to RUNS (the device tool brings back at most 8 files from $OUT): at the
# end, and on an early stop, they are packed into $OUT/runs.tar.gz beside gpu_check.json.
finish() {
  wait
  "$PY" -c "import json; print(json.dumps([json.loads(l) for l in open('$RESULTS')], indent=1))" > "$OUT/gpu_check.json"
  tar -C "$RUNS" -czf "$OUT/runs.tar.gz" . 2>/dev/null
  local failed; failed=$(grep -c '"status": "failed"' "$RESULTS")
  log "done in ${SECONDS} s: $(grep -c '"status": "ok"' "$RESULTS") ok, $failed failed, $(grep -c '"status": "timed_out"' "$RESULTS") timed out, $(grep -c '"status": "skipped"' "$RESULTS") skipped; $OUT/gpu_check.json, $OUT/runs.tar.gz"
  [ "$failed" -eq 0 ]
}
trap 'finish; exit' TERM INT

# Runs one pacer command for a phase's item: PHASE NAME ARGS...; a failure is recorded, never fatal.
item() {
  local phase=$1 name=$2; shift 2
  local s=$SECONDS folder="$RUNS/$phase/$name"
  mkdir -p "$(dirname "$folder")"
  if timeout "$(remaining)" "$P" "$@" > "$folder.log" 2>&1; then
    record "$phase" ok $((SECONDS - s)) "\"item\": \"$name\""
  else
    local rc=$? status=failed
    [ "$rc" -eq 124 ] && status=timed_out  # stopped by the budget: said apart from a failure
    record "$phase" "$status" $((SECONDS - s)) "\"item\": \"$name\", \"rc\": $rc, \"last\": $("$PY" -c "import json,sys; print(json.dumps(open(sys.argv[1]).read()[-400:]))" "$folder.log")"
    log "$phase $name: $status (rc $rc, log: runs.tar.gz $phase/$name.log)"
  fi
}
# Starts an item in the background, at most PARALLEL at once: phases 2-4 ask only whether each
# command works on the device (nothing there is timed), so they share the GPU.
pooled() {
  while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n; done
  item "$@" &
}

# 2-4. What must work: `pacer check` with deterministic kernels (train/state_check.cpp turns them on
# for a GPU) for nadamw and sgd; every board workload with NAdamW for STEPS steps; every built-in
# algorithm for ALGO_STEPS steps on fmnist_mlp. Each item is skipped when under a minute is left.
for w in fmnist_mlp fmnist_resnet fmnist_recon fortunes_lm synthetic_regression; do
  time_left 60 || { record workloads skipped 0 "\"item\": \"$w\""; continue; }
  pooled workloads "$w" run -w "$w" -a nadamw --device "$DEVICE" --max-steps "$STEPS" --eval-every "$STEPS" \
    --ignore-targets -q --out "$RUNS/workloads/$w.out"
done
for a in $("$P" list algorithms --json | "$PY" -c "import json,sys; print(' '.join(a['name'] for a in json.load(sys.stdin)['algorithms']))"); do
  time_left 60 || { record algorithms skipped 0 "\"item\": \"$a\""; continue; }
  pooled algorithms "$a" run -w fmnist_mlp -a "$a" --device "$DEVICE" --max-steps "$ALGO_STEPS" --eval-every "$ALGO_STEPS" \
    --ignore-targets -q --out "$RUNS/algorithms/$a.out"
done
for a in nadamw sgd; do
  time_left 60 || { record check skipped 0 "\"item\": \"$a\""; continue; }
  pooled check "$a" check -a "$a" -w fmnist_mlp --device "$DEVICE" --steps 20
done
wait
log "phases 2-4 done"

# 5. The default job on the GPU, alone: time to target with every clock read synchronized.
if time_left 45; then
  s=$SECONDS
  timeout "$(remaining)" "$P" run -w fmnist_mlp -a nadamw --seed 1 --device "$DEVICE" -q --out "$RUNS/default_job" > "$RUNS/default_job.log" 2>&1
  fields=$("$PY" -c "import json; t=json.load(open('$RUNS/default_job/trial.json')); print(', '.join('\"%s\": %s' % (k, json.dumps(t.get(k))) for k in ('status','time_to_target','steps_to_target','steps','accumulated_submission_time')))" 2>/dev/null || echo '"status": "no trial.json"')
  record default_job measured $((SECONDS - s)) "$fields"
  log "default job: $fields"
else
  record default_job skipped 0
fi

# 6. Step time: pacer against PyTorch eager (AdamW foreach) on the same GPU, alone, interleaved
# (pacer, eager, pacer, eager), the large batch first; then torch.compile once per configuration
# (its compilation is outside the timed steps but costs the call tens of seconds).
pacer_slope() {  # seconds per step: the slope of pacer's submission time from its eval at step 20 to its last
  "$PY" - "$1" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))]
warm = [r for r in rows if int(float(r["global_step"])) >= 20]
a, b = warm[0], warm[-1]
print((float(b["accumulated_submission_time"]) - float(a["accumulated_submission_time"])) /
      (float(b["global_step"]) - float(a["global_step"])))
PY
}
step_time_summary() {  # DIR: the JSON fields of one configuration's medians
  "$PY" - "$1" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
def med(kind):
    v = []
    for f in glob.glob(os.path.join(out, kind + "_*.txt")) + glob.glob(os.path.join(out, kind + "_*.json")):
        try:
            v.append(float(open(f).read()) if f.endswith(".txt") else json.load(open(f))["seconds_per_step"])
        except Exception:
            pass
    return (statistics.median(v), len(v)) if v else (None, 0)
(p, np), (e, ne), (c, nc) = med("pacer"), med("eager"), med("compiled")
r = {"pacer_s_per_step": p, "eager_s_per_step": e, "compiled_s_per_step": c, "runs": [np, ne, nc],
     "pacer_over_eager": p / e if p and e else None, "pacer_over_compiled": p / c if p and c else None}
print(", ".join("\"%s\": %s" % (k, json.dumps(v)) for k, v in r.items()))
PY
}
CONFIGS=${CONFIGS:-"fmnist_resnet:1024 fortunes_lm:1024 fmnist_resnet:128 fortunes_lm:128"}
for config in $CONFIGS; do
  w=${config%%:*} bs=${config##*:} out="$RUNS/step_time/${config/:/_b}"
  time_left 75 || { record step_time skipped 0 "\"item\": \"$w/$bs\""; continue; }
  s=$SECONDS
  mkdir -p "$out"
  for round in 1 2; do
    # As the peer: 20 warm-up steps, then PEER_STEPS timed (evals are off the submission clock).
    timeout "$(remaining)" "$P" run -w "$w" -a nadamw --device "$DEVICE" --threads 1 --batch-size "$bs" --max-steps $((PEER_STEPS + 20)) \
      --eval-every 20 --eval-splits validation --ignore-targets -q --out "$out/pacer_$round" > "$out/pacer_$round.log" 2>&1 &&
      pacer_slope "$out/pacer_$round/eval_measurements.csv" > "$out/pacer_$round.txt" 2>> "$out/pacer_$round.log"
    timeout "$(remaining)" "$PY" bench/speed/workload_peers.py --workload "$w" --device "$DEVICE" --batch-size "$bs" \
      --steps "$PEER_STEPS" > "$out/eager_$round.json" 2> "$out/eager_$round.log"
  done
  fields=$(step_time_summary "$out")
  record step_time measured $((SECONDS - s)) "\"item\": \"$w/$bs\", $fields"
  log "step time $w batch $bs: $fields"
done
for config in $CONFIGS; do
  w=${config%%:*} bs=${config##*:} out="$RUNS/step_time/${config/:/_b}"
  [ -d "$out" ] && time_left 60 || { record step_time_compiled skipped 0 "\"item\": \"$w/$bs\""; continue; }
  s=$SECONDS
  timeout "$(remaining)" "$PY" bench/speed/workload_peers.py --workload "$w" --device "$DEVICE" --batch-size "$bs" \
    --steps "$PEER_STEPS" --compile > "$out/compiled_1.json" 2> "$out/compiled_1.log"
  fields=$(step_time_summary "$out")
  record step_time_compiled measured $((SECONDS - s)) "\"item\": \"$w/$bs\", $fields"
  log "step time $w batch $bs with torch.compile: $fields"
done

finish
