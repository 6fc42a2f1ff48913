#!/usr/bin/env python3
"""Seed noise of the targets: the best point of each workload's target record re-run with N seeds.

For every workload, takes the best point of docs/targets/W.json (the point the target was set
from), trains it with seeds 1..N as the target-setting runs did (the record's steps per run and
eval cadence, targets ignored, no time limit, one thread), and reports the spread of the
best validation value over the seeds and where the target sits in it: how many seeds reach it
and the target's percentile (the share of seeds that end worse than the target). Resumable: a
seed whose run trained all its steps is read, not re-run.

  tools/analysis/seed_noise.py --seeds 10 --jobs 2 --out runs/seed_noise > docs/results/seed_noise/table.md

Writes OUT/seed_noise.json (every seed's best value and step) and a Markdown table on stdout.
"""
import argparse
import concurrent.futures
import csv
import json
import math
import os
import statistics
import subprocess
import sys

BASES = ["fmnist_mlp", "fmnist_cnn", "fmnist_resnet", "fmnist_vit", "fmnist_recon", "fortunes_lm",
         "synthetic_regression"]


def record_point(record):
    """(algorithm, hyperparameters, metric, higher_is_better) of a `pacer targets` record."""
    best = record["best_point"]
    return best["algorithm"], best["hparams"], record["metric"], record["higher_is_better"]


def best_of(csv_path, metric, higher):
    column = "validation/" + metric
    best = None
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            if not row.get(column):
                continue
            value, step = float(row[column]), int(row["global_step"])
            if not math.isfinite(value):
                continue
            if best is None or (value > best[0] if higher else value < best[0]):
                best = (value, step)
    if best is None:
        raise SystemExit(f"{csv_path}: no {column} column with values")
    return best


def finished(out, steps):
    """A run that trained all its steps (an interrupted one also writes trial.json)."""
    try:
        return json.load(open(os.path.join(out, "trial.json"))).get("steps", 0) >= steps
    except (OSError, ValueError):
        return False


def write_point(args, workload, record):
    hparams_path = os.path.join(args.out, workload, "point.json")
    os.makedirs(os.path.dirname(hparams_path), exist_ok=True)
    with open(hparams_path, "w") as f:
        json.dump(record_point(record)[1], f)


def run_seed(args, workload, record, seed):
    algorithm, hparams, metric, higher = record_point(record)
    out = os.path.join(args.out, workload, f"seed_{seed}")
    if not finished(out, record["steps_per_run"]):
        os.makedirs(out, exist_ok=True)
        hparams_path = os.path.join(args.out, workload, "point.json")  # written once, before the jobs
        command = [args.pacer, "run", "-w", workload, "-a", algorithm, "--hparams", hparams_path,
                   "--seed", str(seed), "--max-steps", str(record["steps_per_run"]),
                   "--eval-every", str(record["eval_every"]), "--eval-splits", "validation",
                   "--ignore-targets", "--budget", "1e6", "--threads", "1", "-q", "--overwrite",
                   "--out", out]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{workload} seed {seed}: exit {done.returncode}: {done.stderr.strip()}")
    value, step = best_of(os.path.join(out, "eval_measurements.csv"), metric, higher)
    return workload, seed, value, step


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", default=",".join(BASES))
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pacer", default="build/pacer")
    parser.add_argument("--targets-dir", default="docs/targets")
    parser.add_argument("--out", default="runs/seed_noise")
    args = parser.parse_args()
    workloads = args.workloads.split(",")
    records = {w: json.load(open(os.path.join(args.targets_dir, w + ".json"))) for w in workloads}
    runs = {w: {} for w in workloads}
    for w in workloads:
        write_point(args, w, records[w])
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_seed, args, w, records[w], s) for w in workloads for s in range(1, args.seeds + 1)]
        for future in concurrent.futures.as_completed(futures):
            workload, seed, value, step = future.result()
            runs[workload][seed] = {"best_validation": value, "best_step": step}
            print(f"{workload} seed {seed}: best {value:.4f} at step {step}", file=sys.stderr, flush=True)

    summary = {}
    print("| workload | point | metric | target | seeds | best: min / median / max | sd | seeds reaching | target's percentile |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for w in workloads:
        algorithm, hparams, metric, higher = record_point(records[w])
        target = records[w]["validation_target"]
        values = [runs[w][s]["best_validation"] for s in sorted(runs[w])]
        reaching = sum(1 for v in values if (v >= target if higher else v <= target))
        worse = sum(1 for v in values if (v < target if higher else v > target))
        summary[w] = {"algorithm": algorithm, "metric": metric, "higher_is_better": higher,
                      "validation_target": target, "steps_per_run": records[w]["steps_per_run"],
                      "seeds": {str(s): runs[w][s] for s in sorted(runs[w])},
                      "min": min(values), "median": statistics.median(values), "max": max(values),
                      "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
                      "reaching": reaching, "target_percentile": 100.0 * worse / len(values)}
        s = summary[w]
        print(f"| `{w}` | {algorithm} | {metric} ({'max' if higher else 'min'}) | {target:.4f} | {len(values)} | "
              f"{s['min']:.4f} / {s['median']:.4f} / {s['max']:.4f} | {s['sd']:.4f} | {reaching} / {len(values)} | "
              f"{s['target_percentile']:.0f} |")
    with open(os.path.join(args.out, "seed_noise.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
