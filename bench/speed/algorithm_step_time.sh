#!/usr/bin/env bash
# Step cost of every training algorithm relative to AdamW, measured in the same run: `pacer run`
# for STEPS steps on each workload with each algorithm, interleaved over ROUNDS rounds (the
# algorithm order alternates each round), per-step time = accumulated_submission_time / steps
# from trial.json (the AlgoPerf submission clock: batch selection + the algorithm's update,
# evals excluded). The ratio to AdamW is taken per round, then the median over rounds.
# Builds nothing: build pacer first.
#
#   bench/speed/algorithm_step_time.sh [BUILD_DIR=build] [OUT_DIR=runs/bench]
#   env: STEPS (200), THREADS (1), ROUNDS (3), WORKLOADS ("fmnist_mlp fmnist_cnn"),
#        ALGORITHMS (every algorithm `pacer list` shows)
#
# Writes OUT_DIR/algorithm_step_time_t<THREADS>.json (every run, plus min/median/max per
# algorithm and workload) and prints a Markdown table. A run that fails is marked and the
# suite goes on.
set -euo pipefail

BUILD_DIR=${1:-build}
OUT_DIR=${2:-runs/bench}
STEPS=${STEPS:-200}
THREADS=${THREADS:-1}
ROUNDS=${ROUNDS:-3}
WORKLOADS=${WORKLOADS:-fmnist_mlp fmnist_cnn}
export OPENBLAS_NUM_THREADS=$THREADS
PACER=$BUILD_DIR/pacer
[[ -x $PACER ]] || { echo "algorithm_step_time.sh: $PACER not found; build it first" >&2; exit 2; }
if [[ -z ${ALGORITHMS:-} ]]; then
  # The algorithm table of `pacer list`: the lines between "Algorithms" and the next heading.
  ALGORITHMS=$("$PACER" list | awk '/^Algorithms/{on=1; next} /^[A-Z]/{on=0} on && NF && $1 != "name" && $0 ~ /^  [a-z]/ {print $1}' | sort -u | tr '\n' ' ')
fi
[[ " $ALGORITHMS " == *" adamw "* ]] || ALGORITHMS="adamw $ALGORITHMS"
mkdir -p "$OUT_DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
RAW=$TMP/raw.jsonl
: >"$RAW"

read -r -a algos <<<"$ALGORITHMS"
for round in $(seq 1 "$ROUNDS"); do
  order=("${algos[@]}")
  if (( round % 2 == 0 )); then
    order=(); for (( i=${#algos[@]}-1; i>=0; i-- )); do order+=("${algos[$i]}"); done
  fi
  for w in $WORKLOADS; do
    for a in "${order[@]}"; do
      out=$TMP/$w.$a.$round
      status=ok
      "$PACER" run -w "$w" -a "$a" --max-steps "$STEPS" --eval-every "$STEPS" --budget 1e9 --ignore-targets \
        --threads "$THREADS" -q --out "$out" >"$out.log" 2>&1 || status=failed
      /usr/bin/env python3 - "$out" "$w" "$a" "$round" "$status" >>"$RAW" <<'PY'
import json, sys
out, w, a, rnd, status = sys.argv[1:]
rec = {"workload": w, "algorithm": a, "round": int(rnd), "status": status}
try:
    t = json.load(open(out + "/trial.json"))
    rec["steps"] = t["steps"]
    rec["seconds_per_step"] = t["accumulated_submission_time"] / t["steps"]
except Exception as e:
    rec["status"] = "failed"
    rec["error"] = str(e)
print(json.dumps(rec))
PY
      echo "round $round $w $a: $(tail -1 "$RAW")" >&2
    done
  done
done

/usr/bin/env python3 - "$RAW" "$OUT_DIR/algorithm_step_time_t$THREADS.json" "$STEPS" "$THREADS" <<'PY'
import json, statistics, sys, platform, os
raw, path, steps, threads = sys.argv[1:]
runs = [json.loads(l) for l in open(raw)]
by = {}
for r in runs:
    by.setdefault((r["workload"], r["algorithm"]), []).append(r)
workloads = sorted({r["workload"] for r in runs}, key=lambda w: [r["workload"] for r in runs].index(w))
algos = sorted({r["algorithm"] for r in runs}, key=lambda a: [r["algorithm"] for r in runs].index(a))
summary = []
for w in workloads:
    base = {r["round"]: r.get("seconds_per_step") for r in by.get((w, "adamw"), []) if r["status"] == "ok"}
    for a in algos:
        rs = by.get((w, a), [])
        ok = [r for r in rs if r["status"] == "ok"]
        times = [r["seconds_per_step"] for r in ok]
        ratios = [r["seconds_per_step"] / base[r["round"]] for r in ok if base.get(r["round"])]
        entry = {"workload": w, "algorithm": a, "runs": len(rs), "failed": len(rs) - len(ok)}
        if times:
            entry.update(ms_per_step={"min": 1e3 * min(times), "median": 1e3 * statistics.median(times), "max": 1e3 * max(times)})
        if ratios:
            entry.update(ratio_to_adamw={"min": min(ratios), "median": statistics.median(ratios), "max": max(ratios)})
        summary.append(entry)
json.dump({"benchmark": "algorithm_step_time", "steps": int(steps), "threads": int(threads),
           "machine": platform.node(), "cpus": os.cpu_count(), "summary": summary, "runs": runs},
          open(path, "w"), indent=2)
print("| workload | algorithm | ms/step (median) | min / max | ratio to adamw (median) | min / max |")
print("| --- | --- | --- | --- | --- | --- |")
for e in summary:
    if "ms_per_step" not in e:
        print(f"| {e['workload']} | {e['algorithm']} | failed | | | |"); continue
    m, r = e["ms_per_step"], e.get("ratio_to_adamw", {})
    print(f"| {e['workload']} | {e['algorithm']} | {m['median']:.2f} | {m['min']:.2f} / {m['max']:.2f} | "
          f"{r.get('median', float('nan')):.2f} | {r.get('min', float('nan')):.2f} / {r.get('max', float('nan')):.2f} |")
print(f"wrote {path}", file=sys.stderr)
PY
