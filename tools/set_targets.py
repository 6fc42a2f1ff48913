#!/usr/bin/env python3
"""Sets a workload's targets and budget by a scaled-down version of AlgoPerf's procedure.

AlgoPerf: 200 trials each of AdamW, NAdamW, Nesterov and heavy ball at 0.75 x step_hint; keep the
best; rerun it 20 times; validation target = median of the best validation values; test target =
worst test value among the reruns that reached it. Here (2 CPU cores): a small learning-rate grid per
algorithm (other hyperparameters at their defaults), the best point rerun with `--reruns` seeds, and
the budget set to `--budget-factor` x the median time the reruns needed to reach the validation target.
Finally an untuned point (the bottom of AlgoPerf's NAdamW learning-rate range) is run for the full
step hint to show the target is not trivially reachable.

Usage: tools/set_targets.py --pacer build/pacer --workload fmnist_mlp --step-hint 2000 --eval-every 100 \
           --out docs/targets/fmnist_mlp.json [--jobs 2] [--grid nadamw:1e-3,2e-3 momentum:0.05,0.1]
"""
import argparse
import concurrent.futures
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

DEFAULT_GRID = {
    "nadamw": [1e-3, 2e-3, 4e-3],
    "adamw": [1e-3, 2e-3, 4e-3],
    "momentum": [0.05, 0.1, 0.2],
    "nesterov": [0.05, 0.1, 0.2],
}


def run(pacer, workload, algorithm, lr, seed, steps, every, folder, extra=()):
    out = os.path.join(folder, f"{algorithm}_lr{lr:g}_s{seed}")
    cmd = [pacer, "run", "-w", workload, "-a", algorithm, "--seed", str(seed), "--max-steps", str(steps),
           "--eval-every", str(every), "--ignore-targets", "--threads", "1", "-q", "--out", out]
    if lr is not None:
        cmd += ["--set", f"learning_rate={lr}"]
    cmd += list(extra)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "eval_measurements.csv")) as f:
        rows = list(csv.DictReader(f))
    return {"algorithm": algorithm, "learning_rate": lr, "seed": seed, "rows": rows}


def best(rows, key, higher):
    values = [float(r[key]) for r in rows]
    return max(values) if higher else min(values)


def first_hit(rows, key, target, higher):
    for r in rows:
        v = float(r[key])
        if (v >= target) if higher else (v <= target):
            return float(r["accumulated_submission_time"]), int(r["global_step"])
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--pacer", default="build/pacer")
    p.add_argument("--workload", required=True)
    p.add_argument("--metric", default="accuracy")
    p.add_argument("--minimize", action="store_true")
    p.add_argument("--step-hint", type=int, required=True)
    p.add_argument("--eval-every", type=int, required=True)
    p.add_argument("--reruns", type=int, default=5)
    p.add_argument("--budget-factor", type=float, default=3.0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--grid", nargs="*", help="algorithm:lr,lr,... (default: a 3-point grid for 4 baselines)")
    p.add_argument("--out", required=True)
    a = p.parse_args()
    higher = not a.minimize
    val_key, test_key = f"validation/{a.metric}", f"test/{a.metric}"
    grid = DEFAULT_GRID
    if a.grid:
        grid = {g.split(":")[0]: [float(x) for x in g.split(":")[1].split(",")] for g in a.grid}
    steps = int(0.75 * a.step_hint)
    folder = tempfile.mkdtemp(prefix=f"targets_{a.workload}_")
    log = lambda *x: print(*x, file=sys.stderr, flush=True)

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        jobs = [pool.submit(run, a.pacer, a.workload, alg, lr, 0, steps, a.eval_every, folder)
                for alg, lrs in grid.items() for lr in lrs]
        sweep = [j.result() for j in jobs]
    for s in sweep:
        s["best_validation"] = best(s["rows"], val_key, higher)
        log(f"sweep {s['algorithm']:9s} lr={s['learning_rate']:<8g} best {val_key} = {s['best_validation']:.4f}")
    winner = (max if higher else min)(sweep, key=lambda s: s["best_validation"])
    log(f"best: {winner['algorithm']} lr={winner['learning_rate']}")

    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        jobs = [pool.submit(run, a.pacer, a.workload, winner["algorithm"], winner["learning_rate"], seed, steps,
                            a.eval_every, folder) for seed in range(1, a.reruns + 1)]
        reruns = [j.result() for j in jobs]
    bests = [best(r["rows"], val_key, higher) for r in reruns]
    val_target = round(statistics.median(bests), 4)
    reached = [r for r in reruns if first_hit(r["rows"], val_key, val_target, higher)]
    test_target = round((min if higher else max)(best(r["rows"], test_key, higher) for r in reached), 4)
    hit_times = [first_hit(r["rows"], val_key, val_target, higher) for r in reached]
    median_time = statistics.median(t for t, _ in hit_times)
    median_steps = statistics.median(s for _, s in hit_times)
    budget = a.budget_factor * median_time
    log(f"validation target {val_target}, test target {test_target}, median time {median_time:.2f}s, budget {budget:.1f}s")

    untuned = run(a.pacer, a.workload, "nadamw", 1e-4, 0, a.step_hint, a.eval_every, folder)
    untuned_hit = first_hit(untuned["rows"], val_key, val_target, higher)
    untuned_best = best(untuned["rows"], val_key, higher)

    result = {
        "workload": a.workload,
        "procedure": "tools/set_targets.py (scaled-down AlgoPerf target setting, see docs/targets.md)",
        "step_hint": a.step_hint,
        "steps_per_run": steps,
        "eval_every": a.eval_every,
        "sweep": [{"algorithm": s["algorithm"], "learning_rate": s["learning_rate"],
                   "best_validation": s["best_validation"]} for s in sweep],
        "best_point": {"algorithm": winner["algorithm"], "learning_rate": winner["learning_rate"]},
        "reruns_best_validation": bests,
        "validation_target": val_target,
        "test_target": test_target,
        "reruns_reaching_target": len(reached),
        "median_time_to_target_sec": median_time,
        "median_steps_to_target": median_steps,
        "budget_factor": a.budget_factor,
        "suggested_budget_sec": budget,
        "untuned": {"algorithm": "nadamw", "learning_rate": 1e-4, "steps": a.step_hint,
                    "best_validation": untuned_best,
                    "reached_at": None if untuned_hit is None else {"time": untuned_hit[0], "step": untuned_hit[1]}},
    }
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: result[k] for k in ("workload", "validation_target", "test_target", "suggested_budget_sec")}))


if __name__ == "__main__":
    main()
