#!/usr/bin/env bash
# Step-time benchmark for the four larger workloads (fmnist_resnet, fmnist_vit, fmnist_recon,
# fortunes_lm): `pacer run -a nadamw` against the same model and loop in PyTorch Python with its
# fastest stock optimizer path (bench/speed/workload_peers.py: AdamW(foreach=True), random data of the
# workload's shapes), same steps, batch size and threads, interleaved over R rounds (the order
# alternates each round so neither program always runs first). Also reports each program's
# achieved FLOP/s (analytic matmul FLOPs per training step / seconds per step) against this
# machine's fp32 matmul peak (bench/speed/matmul_peak.py, torch.mm at the same thread count).
# Builds nothing: build pacer first.
#
#   bench/speed/workload_step_time.sh [BUILD_DIR=build] [OUT_DIR=runs/bench]
#   env: STEPS (200), THREADS (1), ROUNDS (3), WARMUP (20, peer only), PYTHON (/usr/bin/python3),
#        WORKLOADS ("fmnist_resnet fmnist_vit fmnist_recon fortunes_lm");
#   the environment reaches both programs (e.g. OMP_WAIT_POLICY=passive, see docs/benchmarks.md)
#
# Per-step time: pacer = accumulated_submission_time / steps from trial.json (the AlgoPerf
# submission clock: batch selection + update, evals excluded; it includes the cold first step,
# also reported without it); the peer times STEPS steps after WARMUP untimed ones. `pacer run`
# evaluates on the validation/test/train-eval splits at step 1 and at the end: off its clock, but
# wall time, so each pacer run takes noticeably longer than STEPS steps. Writes
# OUT_DIR/workload_step_time_t<THREADS>.json and .md (medians, ratios, GFLOP/s, % of peak) and
# prints the table.
set -euo pipefail

BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench}
STEPS=${STEPS:-200}
THREADS=${THREADS:-1}
# OpenBLAS keeps its own thread pool that torch.set_num_threads does not size (pacer --threads
# does, since it calls openblas_set_num_threads): pin it for every program, the peak included.
export OPENBLAS_NUM_THREADS=$THREADS
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-20}
PYTHON=${PYTHON:-/usr/bin/python3}
WORKLOADS=${WORKLOADS:-fmnist_resnet fmnist_vit fmnist_recon fortunes_lm}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

PACER=$BUILD_DIR/pacer
[[ -x $PACER ]] || { echo "workload_step_time.sh: $PACER not found; build it first (cmake --build $BUILD_DIR)" >&2; exit 2; }
"$PYTHON" -c 'import torch, numpy' 2>/dev/null ||
  { echo "workload_step_time.sh: $PYTHON lacks torch or numpy (set PYTHON=...)" >&2; exit 2; }
listed=$("$PACER" list 2>/dev/null || true)
for w in $WORKLOADS; do
  grep -qw -- "$w" <<<"$listed" ||
    { echo "workload_step_time.sh: $PACER does not list workload $w; rebuild it" >&2; exit 2; }
done

mkdir -p "$OUT_DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RAW=$TMP/raw.jsonl
: >"$RAW"

# One JSON line per workload: batch size, params, FLOPs per step (checked against hand counts).
"$PYTHON" "$HERE/workload_peers.py" --describe --threads "$THREADS" >"$TMP/describe.jsonl"
batch_size() {
  "$PYTHON" -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["workload"] == sys.argv[2]: print(r["batch_size"])' "$TMP/describe.jsonl" "$1"
}

echo "matmul peak at $THREADS thread(s)..." >&2
"$PYTHON" "$HERE/matmul_peak.py" --threads "$THREADS" >"$TMP/peak.json"

run_pacer() {  # workload round batch
  local out=$TMP/pacer_$1_$2
  "$PACER" run -w "$1" -a nadamw --seed 1 --max-steps "$STEPS" --eval-every "$STEPS" --ignore-targets \
    --batch-size "$3" --threads "$THREADS" -q --out "$out" >/dev/null
  "$PYTHON" - "$out" "$1" "$2" >>"$RAW" <<'PY'
import csv, json, os, sys
out, workload, rnd = sys.argv[1], sys.argv[2], int(sys.argv[3])
t = json.load(open(out + "/trial.json"))
rows = {int(r["global_step"]): r for r in csv.DictReader(open(out + "/eval_measurements.csv"))}
steps, total = t["steps"], t["accumulated_submission_time"]
rec = {"impl": "pacer", "workload": workload, "round": rnd, "steps": steps, "seconds": total,
       "seconds_per_step": total / steps}
meta = out + "/meta_data_0.json"
if os.path.exists(meta):
    m = json.load(open(meta))
    rec["batch_size"], rec["threads"] = m.get("batch_size"), m.get("num_threads")
first = float(rows[1]["accumulated_submission_time"]) if 1 in rows else None
if first is not None and steps > 1:
    rec["first_step_seconds"] = first
    rec["seconds_per_step_after_first"] = (total - first) / (steps - 1)
print(json.dumps(rec))
PY
}
run_peer() {  # workload round batch
  "$PYTHON" "$HERE/workload_peers.py" --workload "$1" --steps "$STEPS" --warmup "$WARMUP" --threads "$THREADS" \
    --batch-size "$3" --seed 1 |
    "$PYTHON" -c 'import json,sys; r=json.load(sys.stdin); r["round"]=int(sys.argv[1]); print(json.dumps(r))' "$2" >>"$RAW"
}

for w in $WORKLOADS; do
  b=$(batch_size "$w")
  for ((r = 1; r <= ROUNDS; ++r)); do
    if ((r % 2)); then order=(pacer peer); else order=(peer pacer); fi
    for p in "${order[@]}"; do
      echo "$w round $r/$ROUNDS: $p" >&2
      "run_$p" "$w" "$r" "$b"
    done
  done
done

"$PYTHON" - "$RAW" "$TMP/describe.jsonl" "$TMP/peak.json" "$OUT_DIR" "$STEPS" "$THREADS" "$ROUNDS" "$WARMUP" "$WORKLOADS" <<'PY'
import json, os, platform, statistics, sys, time
raw, describe, peak_file, out_dir, steps, threads, rounds, warmup, workloads = sys.argv[1:10]
runs = [json.loads(line) for line in open(raw)]
info = {r["workload"]: r for r in map(json.loads, open(describe))}
peak = json.load(open(peak_file))
peak_flops = peak["gflops"] * 1e9

def values(workload, impl, key="seconds_per_step"):
    return [r[key] for r in runs if r["workload"] == workload and r["impl"] == impl and key in r]
def med(workload, impl, key="seconds_per_step"):
    xs = values(workload, impl, key)
    return statistics.median(xs) if xs else None
def model_name():
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()

results = {}
for w in workloads.split():
    flops = info[w]["flops_per_step"]
    pacer, peer = med(w, "pacer"), med(w, "pytorch_python")
    pacer_after_first = med(w, "pacer", "seconds_per_step_after_first")
    results[w] = {
        "batch_size": info[w]["batch_size"], "params": info[w]["params"], "flops_per_step": flops,
        "median_seconds_per_step": {"pacer": pacer, "pytorch_python": peer},
        "min_seconds_per_step": {"pacer": min(values(w, "pacer")), "pytorch_python": min(values(w, "pytorch_python"))},
        "pacer_seconds_per_step_after_first_step": pacer_after_first,
        "pacer_first_step_seconds": med(w, "pacer", "first_step_seconds"),
        "ratio_pacer_over_python": pacer / peer,
        "ratio_pacer_after_first_over_python": pacer_after_first / peer if pacer_after_first else None,
        "gflops": {"pacer": flops / pacer / 1e9, "pytorch_python": flops / peer / 1e9},
        "percent_of_matmul_peak": {"pacer": 100 * flops / pacer / peak_flops,
                                   "pytorch_python": 100 * flops / peer / peak_flops},
    }
summary = {
    "benchmark": "workload step time, pacer nadamw vs PyTorch AdamW(foreach=True)",
    "date": time.strftime("%Y-%m-%d %H:%M:%S"), "cpu": model_name(), "cores": os.cpu_count(),
    "load_average": os.getloadavg(), "steps": int(steps), "threads": int(threads), "rounds": int(rounds),
    "peer_warmup_steps": int(warmup), "matmul_peak": peak,
    "flops_note": "analytic: 3 x (2 x MACs of Linear/Conv/ConvTranspose and attention matmuls in the forward); "
                  "elementwise ops and the optimizer ignored (bench/speed/workload_peers.py)",
    "workloads": results, "runs": runs,
}
base = f"{out_dir}/workload_step_time_t{threads}"
json.dump(summary, open(base + ".json", "w"), indent=2)

def ms(x): return "-" if x is None else f"{1000 * x:.2f}"
lines = [
    f"{steps} steps, {threads} thread(s), {rounds} interleaved rounds, {summary['cpu']} ({summary['cores']} cores), "
    f"load average at the end {summary['load_average'][0]:.2f}; fp32 matmul peak (torch.mm, {threads} thread(s)) "
    f"{peak['gflops']:.1f} GFLOP/s",
    "",
    "| workload | batch | params | GFLOP/step | pacer ms/step | pacer w/o 1st step | PyTorch ms/step | pacer / PyTorch "
    "| (w/o 1st) | pacer GFLOP/s | % peak | PyTorch GFLOP/s | % peak |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
]
for w, r in results.items():
    m = r["median_seconds_per_step"]
    ratio2 = r["ratio_pacer_after_first_over_python"]
    lines.append(
        f"| {w} | {r['batch_size']} | {r['params']} | {r['flops_per_step'] / 1e9:.3f} | {ms(m['pacer'])} | "
        f"{ms(r['pacer_seconds_per_step_after_first_step'])} | {ms(m['pytorch_python'])} | "
        f"{r['ratio_pacer_over_python']:.3f} | {'-' if ratio2 is None else f'{ratio2:.3f}'} | "
        f"{r['gflops']['pacer']:.1f} | {r['percent_of_matmul_peak']['pacer']:.1f} | "
        f"{r['gflops']['pytorch_python']:.1f} | {r['percent_of_matmul_peak']['pytorch_python']:.1f} |")
lines += ["", "Medians over rounds. pacer: accumulated_submission_time / steps (includes the cold first step; "
          "the next column leaves it out). PyTorch: random data, AdamW(foreach=True), after untimed warmup steps. "
          "GFLOP/s: analytic matmul FLOPs per step (forward + 2x backward) / median seconds per step."]
open(base + ".md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"\nwrote {base}.json and {base}.md")
PY
