#!/usr/bin/env python3
"""Where issue 62's runs stand: per optimizer and series, the studies' trials and the replication's seeds.

Reads what tools/analysis/adasum_claims.sh writes under DIR (DIR/O/S/scale.db, scaling.json and
replicated/) without touching it (the store is opened read-only, so it may be read while the runs
go on), and prints one Markdown row per series in the plan's order, then a total:

  tools/analysis/adasum_claims_status.py docs/results/adasum_claims/experiment
  | optimizer | series | studies: trials finished | running | replication: seeds finished | state |
  | momentum | mean | 64 of 64 | 0 | 40 of 40 | complete |
  | lamb | adasum | 12 of 64 | 1 | - | studies |

A trial counts as finished when the store says complete, diverged or failed; a seed when its
trial.json is there and not "interrupted", or when its evals have crossed the goal
(replicate_best.py --stop-at-goal's own rule, which the experiment uses: a seed interrupted
before the goal is run again). The replication's size is known once the studies are done: 5 seeds (--seeds) for each batch
size whose study has a best point. --json FILE writes the same as data.
"""
import argparse
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from replicate_best import crossed_goal, finished_trial  # noqa: E402  (the replication's own rules)

OPTIMIZERS = ["momentum", "lamb", "adam"]
SERIES = ["mean", "adasum", "adasum-delta"]
FINISHED = ("complete", "diverged", "failed")


def study_counts(db_path, planned):
    """(trials finished, trials running, trials planned) of a `pacer scale` store."""
    if not os.path.exists(db_path):
        return 0, 0, planned
    # Read-only: the runs may be writing (the store's WAL lets a reader see their last commit).
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        by_status = dict(con.execute("SELECT status, count(*) FROM trials GROUP BY status").fetchall())
        studies, stored_planned = con.execute("SELECT count(*), coalesce(sum(planned_trials), 0) FROM studies").fetchone()
    finally:
        con.close()
    finished = sum(by_status.get(s, 0) for s in FINISHED)
    return finished, by_status.get("running", 0), max(planned, stored_planned)


def replication_counts(series_dir, name, seeds):
    """(seeds finished, seeds planned) or None while the studies have no scaling.json yet."""
    try:
        with open(os.path.join(series_dir, "scaling.json")) as f:
            report = json.load(f)
    except (OSError, ValueError):
        return None
    finished = planned = 0
    goal = report.get("goal", {})
    for series in report.get("series", []):
        for row in series.get("batch_sizes", []):
            if not row.get("best_hyperparameters"):
                continue
            planned += seeds
            for seed in range(1, seeds + 1):
                folder = os.path.join(series_dir, "replicated", f"{series['name']}@b{row['batch_size']}", f"seed_{seed}")
                finished += finished_trial(folder) or (
                    "metric" in goal and crossed_goal(folder, goal["metric"], goal["value"], goal["higher_is_better"]) is not None)
    return finished, planned


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", help="the experiment's folder (adasum_claims.sh's OUT)")
    p.add_argument("--batch-sizes", type=int, default=8, help="batch sizes per series (128 to 16384: 8)")
    p.add_argument("--trials", type=int, default=8, help="trials per batch size's study")
    p.add_argument("--seeds", type=int, default=5, help="replication seeds per batch size")
    p.add_argument("--json", help="write the counts here too")
    a = p.parse_args()
    if not os.path.isdir(a.dir):
        print(f"adasum_claims_status.py: {a.dir}: no such folder", file=sys.stderr)
        return 2
    rows = []
    for optimizer in OPTIMIZERS:
        for series in SERIES:
            d = os.path.join(a.dir, optimizer, series)
            done, running, planned = study_counts(os.path.join(d, "scale.db"), a.batch_sizes * a.trials)
            replication = replication_counts(d, f"{optimizer}+{series}", a.seeds)
            if not os.path.isdir(d):
                state = "not started"
            elif replication is None:
                state = "studies"
            elif replication[0] < replication[1]:
                state = "replication"
            else:
                state = "complete"
            rows.append({"optimizer": optimizer, "series": series, "trials_finished": done, "trials_running": running,
                         "trials_planned": planned,
                         "seeds_finished": replication[0] if replication else None,
                         "seeds_planned": replication[1] if replication else None, "state": state})
    print("| optimizer | series | studies: trials finished | running | replication: seeds finished | state |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        seeds = "-" if r["seeds_planned"] is None else f"{r['seeds_finished']} of {r['seeds_planned']}"
        print(f"| {r['optimizer']} | {r['series']} | {r['trials_finished']} of {r['trials_planned']} | "
              f"{r['trials_running']} | {seeds} | {r['state']} |")
    complete = sum(r["state"] == "complete" for r in rows)
    print(f"\n{complete} of {len(rows)} series complete")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"dir": a.dir, "series": rows, "complete": complete}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
