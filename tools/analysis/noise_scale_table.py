#!/usr/bin/env python3
"""The gradient noise scale B_simple of each board workload along one run, as a Markdown table.

    tools/analysis/noise_scales.sh build/pacer runs/noise_scales      # the runs (NAdamW at its defaults)
    tools/analysis/noise_scale_table.py runs/noise_scales

Reads FOLDER/<workload>/eval_measurements.csv (the train/noise_scale column that
`pacer run --noise-scale K` writes at every eval) and trial.json. An eval whose estimate is NaN
(the shards' estimate of |G|^2 came out negative: noise dominated them) is left out and counted.
"""
import csv
import json
import math
import os
import statistics
import sys

WORKLOADS = ["synthetic_regression", "fmnist_mlp", "fmnist_recon", "fmnist_resnet", "fortunes_lm"]


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    print("| workload | batch size | steps run | B_simple at each eval (step: value) | last finite | NaN evals |")
    print("| --- | --- | --- | --- | --- | --- |")
    for w in WORKLOADS:
        path = os.path.join(folder, w)
        try:
            rows = list(csv.DictReader(open(os.path.join(path, "eval_measurements.csv"))))
            trial = json.load(open(os.path.join(path, "trial.json")))
        except (OSError, ValueError) as e:
            print(f"| {w} | cannot read: {e} | | | | |")
            continue
        values = [(int(r["global_step"]), float(r["train/noise_scale"] or "nan")) for r in rows]
        finite = [(s, v) for s, v in values if not math.isnan(v)]
        # At most 8 evals shown, evenly spread, the first and the last included.
        shown = finite if len(finite) <= 8 else [finite[round(i * (len(finite) - 1) / 7)] for i in range(8)]
        cells = ", ".join(f"{s}: {v:.3g}" for s, v in shown)
        print(f"| {w} | {trial['batch_size']} | {trial['steps']} | {cells} | {finite[-1][1]:.3g} | "
              f"{len(values) - len(finite)} |")


if __name__ == "__main__":
    main()
