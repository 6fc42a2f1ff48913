#!/usr/bin/env python3
"""Issue 62, beside the pre-registered verdicts (a declared, later analysis): the replicated
median steps of each Adasum series over the mean's at every batch size, not only the largest,
with the same 95% bootstrap interval (tools/analysis/adasum_claims.py's ratio_interval).

  tools/analysis/adasum_ratios_by_batch.py docs/results/adasum_claims/experiment
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from adasum_claims import SEED, ratio_interval  # noqa: E402


def fail(message):
    print("adasum_ratios_by_batch.py: " + message, file=sys.stderr)
    sys.exit(2)


def replicated(path):
    try:
        with open(path) as f:
            return {r["batch_size"]: r["steps_per_seed"] for r in json.load(f)["results"]}
    except (OSError, ValueError, KeyError) as e:
        fail(f"{path}: {e}")


def main():
    if len(sys.argv) != 2:
        fail("usage: adasum_ratios_by_batch.py EXPERIMENT_DIR")
    root = sys.argv[1]
    rng = random.Random(SEED)
    print("| series | " + " | ".join(str(128 << i) for i in range(8)) + " |")
    print("| --- |" + " --- |" * 8)
    for o in ("momentum", "adam", "lamb"):
        mean = replicated(os.path.join(root, o, "mean", "replicated", "replicated.json"))
        for combine in ("adasum", "adasum-delta"):
            mine = replicated(os.path.join(root, o, combine, "replicated", "replicated.json"))
            cells = []
            for b in (128 << i for i in range(8)):
                if b not in mine or b not in mean:
                    cells.append("-")
                    continue
                r = ratio_interval(mine[b], mean[b], rng)
                show = lambda x: "inf" if x == float("inf") else f"{x:.2f}"
                cells.append("-" if r is None else f"{show(r[0])} ({show(r[1])}-{show(r[2])})")
            print(f"| {o}+{combine} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
