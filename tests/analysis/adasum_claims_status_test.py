#!/usr/bin/env python3
"""Counting where issue 62's runs stand (CTest AdasumClaimsStatus): tools/analysis/adasum_claims_status.py
on a made-up experiment folder. A series with a store but no scaling.json is in its studies (finished
and running trials counted from the store, pending ones not); one with scaling.json is in its
replication until every seed of every batch size with a best point has a finished trial.json or
evals past the goal (one interrupted before it does not count, a batch size without a best point
is not replicated); one
without a folder has not started.

  tests/analysis/adasum_claims_status_test.py REPO_ROOT
"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile


def store(path, planned, statuses):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE studies(id INTEGER PRIMARY KEY, planned_trials INTEGER NOT NULL)")
    con.execute("CREATE TABLE trials(id INTEGER PRIMARY KEY, study_id INTEGER, status TEXT NOT NULL)")
    for i, n in enumerate(planned, 1):
        con.execute("INSERT INTO studies VALUES (?, ?)", (i, n))
    for s in statuses:
        con.execute("INSERT INTO trials(study_id, status) VALUES (1, ?)", (s,))
    con.commit()
    con.close()


def seed(folder, status):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "trial.json"), "w") as f:
        json.dump({"status": status}, f)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tool = os.path.join(root, "tools", "analysis", "adasum_claims_status.py")
    with tempfile.TemporaryDirectory() as tmp:
        exp = os.path.join(tmp, "experiment")
        # momentum+mean: studies done (2 batch sizes x 2 trials), replication of the one batch size
        # with a best point: seeds 1 and 2 finished, seed 3 interrupted before the goal.
        d = os.path.join(exp, "momentum", "mean")
        store(os.path.join(d, "scale.db"), [2, 2], ["complete", "complete", "diverged", "failed"])
        with open(os.path.join(d, "scaling.json"), "w") as f:
            json.dump({"goal": {"metric": "validation/accuracy", "value": 0.88, "higher_is_better": True},
                       "series": [{"name": "momentum+mean", "batch_sizes": [
                {"batch_size": 128, "best_hyperparameters": {"learning_rate": 0.1}},
                {"batch_size": 256, "best_hyperparameters": {}}]}]}, f)
        seed(os.path.join(d, "replicated", "momentum+mean@b128", "seed_1"), "complete")
        seed(os.path.join(d, "replicated", "momentum+mean@b128", "seed_2"), "diverged")
        seed(os.path.join(d, "replicated", "momentum+mean@b128", "seed_3"), "interrupted")
        # momentum+adasum: in its studies, one batch size's study made so far.
        store(os.path.join(exp, "momentum", "adasum", "scale.db"), [2],
              ["complete", "running", "pending", "interrupted"])
        out = os.path.join(tmp, "status.json")
        done = subprocess.run([sys.executable, tool, exp, "--batch-sizes", "2", "--trials", "2", "--seeds", "3",
                               "--json", out], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        rows = {(r["optimizer"], r["series"]): r for r in json.load(open(out))["series"]}
        assert len(rows) == 9, rows
        mean = rows[("momentum", "mean")]
        assert (mean["trials_finished"], mean["trials_planned"]) == (4, 4), mean
        assert (mean["seeds_finished"], mean["seeds_planned"], mean["state"]) == (2, 3, "replication"), mean
        adasum = rows[("momentum", "adasum")]
        assert (adasum["trials_finished"], adasum["trials_running"], adasum["trials_planned"]) == (1, 1, 4), adasum
        assert (adasum["seeds_planned"], adasum["state"]) == (None, "studies"), adasum
        assert rows[("adam", "mean")]["state"] == "not started", rows[("adam", "mean")]
        assert "| momentum | mean | 4 of 4 | 0 | 2 of 3 | replication |" in done.stdout, done.stdout
        # The last seed is stopped once its evals cross the goal (--stop-at-goal): it is finished,
        # and the series complete.
        with open(os.path.join(d, "replicated", "momentum+mean@b128", "seed_3", "eval_measurements.csv"), "w") as f:
            f.write("global_step,validation/accuracy\n10,0.5\n20,0.9\n")
        done = subprocess.run([sys.executable, tool, exp, "--batch-sizes", "2", "--trials", "2", "--seeds", "3"],
                              capture_output=True, text=True)
        assert "| momentum | mean | 4 of 4 | 0 | 3 of 3 | complete |" in done.stdout, done.stdout
        assert "1 of 9 series complete" in done.stdout, done.stdout
        # A folder that is not there is named.
        done = subprocess.run([sys.executable, tool, os.path.join(tmp, "nowhere")], capture_output=True, text=True)
        assert done.returncode == 2 and "nowhere" in done.stderr, done.stderr
    print("adasum_claims_status: ok")


if __name__ == "__main__":
    main()
