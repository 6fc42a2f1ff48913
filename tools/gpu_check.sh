#!/usr/bin/env bash
# Issue 47's GPU check (docs/gpu.md), in ONE call on a lent GPU machine, from the repository root,
# with the packed dependencies carried (tools/pack_device_deps.sh here first):
#
#   device tool: run  command="tools/gpu_check.sh"  carry=[".devcarry"]  timeout_s=540
#
# Phases, each logged and timed, each skipped (and said so) when the time left is short:
#   1. build `pacer` against the machine's pip LibTorch (CMAKE_PREFIX_PATH: its torch, .devcarry/prefix;
#      no PostgreSQL, no serve); on failure the compiler's errors go to build_errors.txt
#   2. `pacer check` on CUDA (deterministic kernels) for nadamw and sgd
#   3. every board workload with NAdamW for STEPS steps on CUDA
#   4. every built-in algorithm for ALGO_STEPS steps on fmnist_mlp on CUDA
#   5. step time against PyTorch eager (AdamW foreach) and torch.compile on the same GPU, interleaved
#      (bench/workload_peers.py --device), fmnist_resnet and fortunes_lm at two batch sizes
#   6. the default job (`pacer run -w fmnist_mlp -a nadamw --seed 1`) on the GPU: time to target
# Results: $OUT/gpu_check.json (every phase: status, seconds, figures) and the logs beside it.
# A dry run of the plumbing on a CPU machine (no build, an existing pacer):
#   DEVICE=cpu PACER=build/pacer STEPS=20 ALGO_STEPS=5 PEER_STEPS=5 OUT=/tmp/gc tools/gpu_check.sh
set -uo pipefail
OUT=${OUT:-runs/gpu_check}
mkdir -p "$OUT"
DEVICE=${DEVICE:-cuda}
STEPS=${STEPS:-300}
ALGO_STEPS=${ALGO_STEPS:-100}
PEER_STEPS=${PEER_STEPS:-200}
BUDGET=${BUDGET:-500}  # seconds this script may use in all (the call's limit leaves a margin)
PY=${PYTHON:-$(command -v python3)}
JOBS=${JOBS:-$(nproc)}
RESULTS="$OUT/results.jsonl"
: > "$RESULTS"
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$OUT/gpu_check.log"; }
# record PHASE STATUS SECONDS [JSON fields without braces]
record() { echo "{\"phase\": \"$1\", \"status\": \"$2\", \"seconds\": $3${4:+, $4}}" >> "$RESULTS"; }
time_left() { [ $((BUDGET - SECONDS)) -gt "$1" ]; }

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
       -DCMAKE_PREFIX_PATH="$TORCH_DIR;$PWD/.devcarry/prefix" -DPACER_WITH_POSTGRES=OFF -DPACER_WITH_SERVE=OFF \
       -DPACER_BUILD_TESTS=OFF -DPACER_BUILD_BENCH=OFF > "$OUT/configure.log" 2>&1 &&
     cmake --build build-gpu -j "$JOBS" --target pacer_cli -- -k 0 > "$OUT/build.log" 2>&1; then
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

# Runs one pacer command for a phase's item: PHASE NAME ARGS...; a failure is recorded, never fatal.
item() {
  local phase=$1 name=$2; shift 2
  local s=$SECONDS folder="$OUT/runs/$phase/$name"
  mkdir -p "$(dirname "$folder")"
  if "$P" "$@" > "$folder.log" 2>&1; then
    record "$phase" ok $((SECONDS - s)) "\"item\": \"$name\""
  else
    record "$phase" failed $((SECONDS - s)) "\"item\": \"$name\", \"rc\": $?, \"last\": $("$PY" -c "import json,sys; print(json.dumps(open(sys.argv[1]).read()[-400:]))" "$folder.log")"
    log "$phase $name: FAILED (log: $folder.log)"
  fi
}

# 2. pacer check, deterministic kernels (train/state_check.cpp turns them on for a GPU).
for a in nadamw sgd; do
  time_left 400 || { record check skipped 0 "\"item\": \"$a\""; continue; }
  item check "$a" check -a "$a" -w fmnist_mlp --device "$DEVICE" --steps 20
done

# 3. Every board workload, NAdamW, STEPS steps.
for w in fmnist_mlp fmnist_resnet fmnist_recon fortunes_lm synthetic_regression; do
  time_left 300 || { record workloads skipped 0 "\"item\": \"$w\""; continue; }
  item workloads "$w" run -w "$w" -a nadamw --device "$DEVICE" --max-steps "$STEPS" --eval-every "$STEPS" \
    --ignore-targets -q --out "$OUT/runs/workloads/$w.out"
done

# 4. Every built-in algorithm, ALGO_STEPS steps on fmnist_mlp.
for a in $("$P" list algorithms --json | "$PY" -c "import json,sys; print(' '.join(a['name'] for a in json.load(sys.stdin)['algorithms']))"); do
  time_left 200 || { record algorithms skipped 0 "\"item\": \"$a\""; continue; }
  item algorithms "$a" run -w fmnist_mlp -a "$a" --device "$DEVICE" --max-steps "$ALGO_STEPS" --eval-every "$ALGO_STEPS" \
    --ignore-targets -q --out "$OUT/runs/algorithms/$a.out"
done

# 5. Step time: pacer against PyTorch eager (foreach) and torch.compile, same GPU, interleaved.
for w in fmnist_resnet fortunes_lm; do
  for bs in 128 1024; do
    time_left 120 || { record step_time skipped 0 "\"item\": \"$w/$bs\""; continue; }
    s=$SECONDS
    out="$OUT/runs/step_time/${w}_b$bs"
    mkdir -p "$out"
    for round in 1 2; do
      # As the peer: 20 warm-up steps, then PEER_STEPS timed (the slope between the evals at step 20
      # and at the end; evals are off the submission clock).
      "$P" run -w "$w" -a nadamw --device "$DEVICE" --threads 1 --batch-size "$bs" --max-steps $((PEER_STEPS + 20)) \
        --eval-every 20 --eval-splits validation --ignore-targets -q --out "$out/pacer_$round" > "$out/pacer_$round.log" 2>&1
      "$PY" bench/workload_peers.py --workload "$w" --device "$DEVICE" --batch-size "$bs" --steps "$PEER_STEPS" \
        > "$out/eager_$round.json" 2> "$out/eager_$round.log"
      "$PY" bench/workload_peers.py --workload "$w" --device "$DEVICE" --batch-size "$bs" --steps "$PEER_STEPS" \
        --compile > "$out/compiled_$round.json" 2> "$out/compiled_$round.log"
    done
    fields=$("$PY" - "$out" <<'PY'
import json, sys, glob, os, statistics
out = sys.argv[1]
def med(values):
    return statistics.median(values) if values else None
import csv
pacer = []
for f in glob.glob(os.path.join(out, "pacer_*", "eval_measurements.csv")):
    rows = [r for r in csv.DictReader(open(f))]
    warm = [r for r in rows if int(float(r["global_step"])) >= 20]
    if len(warm) >= 2:
        a, b = warm[0], warm[-1]
        steps = float(b["global_step"]) - float(a["global_step"])
        if steps > 0:
            pacer.append((float(b["accumulated_submission_time"]) - float(a["accumulated_submission_time"])) / steps)
def peer(kind):
    v = []
    for f in glob.glob(os.path.join(out, kind + "_*.json")):
        try:
            v.append(json.load(open(f))["seconds_per_step"])
        except Exception:
            pass
    return med(v)
p, e, c = med(pacer), peer("eager"), peer("compiled")
r = {"pacer_s_per_step": p, "eager_s_per_step": e, "compiled_s_per_step": c,
     "pacer_over_eager": p / e if p and e else None, "pacer_over_compiled": p / c if p and c else None}
print(", ".join("\"%s\": %s" % (k, json.dumps(v)) for k, v in r.items()))
PY
)
    record step_time measured $((SECONDS - s)) "\"item\": \"$w/$bs\", $fields"
    log "step time $w batch $bs: $fields"
  done
done

# 6. The default job on the GPU: time to target with every clock read synchronized.
if time_left 30; then
  s=$SECONDS
  if "$P" run -w fmnist_mlp -a nadamw --seed 1 --device "$DEVICE" -q --out "$OUT/runs/default_job" > "$OUT/runs/default_job.log" 2>&1; then :; fi
  fields=$("$PY" -c "import json; t=json.load(open('$OUT/runs/default_job/trial.json')); print(', '.join('\"%s\": %s' % (k, json.dumps(t.get(k))) for k in ('status','time_to_target','steps_to_target','steps','accumulated_submission_time')))" 2>/dev/null || echo '"status": "no trial.json"')
  record default_job measured $((SECONDS - s)) "$fields"
  log "default job: $fields"
else
  record default_job skipped 0
fi

"$PY" -c "import json; print(json.dumps([json.loads(l) for l in open('$RESULTS')], indent=1))" > "$OUT/gpu_check.json"
failed=$(grep -c '"status": "failed"' "$RESULTS")
log "done in ${SECONDS} s: $(grep -c '"status": "ok"' "$RESULTS") ok, $failed failed, $(grep -c '"status": "skipped"' "$RESULTS") skipped; $OUT/gpu_check.json"
[ "$failed" -eq 0 ]
