#!/usr/bin/python3
"""Re-derives a target record's budget from steps instead of seconds measured under load.

`pacer targets` sets budget = factor x the median time its re-runs needed to reach the validation
target; those times depend on what else ran on the machine. This keeps the procedure's steps (the
median step at which the re-runs first reached the target, read from the study store; runs are
deterministic, so steps do not depend on load) and multiplies them by the per-step time of the
best point measured alone (`pacer run --threads 1`, no other work on the machine):
budget = ceil(factor x median steps to target x seconds per step). The record keeps the old value
as budget_under_load_s and says how the new one was measured.

Usage: tools/analysis/rebudget.py --record docs/targets/fmnist_vit.json --store runs/targets.db [--pacer build/pacer] [--steps 100]
"""
import argparse
import json
import math
import os
import sqlite3
import statistics
import subprocess
import tempfile


def steps_to_target(store, record):
    key = "validation/" + record["metric"]
    target = record["validation_target"]
    higher = record["higher_is_better"]
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    rows = db.execute(
        "select t.id, max(e.attempt) from trials t join studies s on s.id = t.study_id join evals e on e.trial_id = t.id "
        "where s.experiment = 'targets-rerun' and s.workload = ? group by t.id", (record["workload"],)).fetchall()
    steps = []
    for trial_id, attempt in rows:
        for step, metrics in db.execute(
                "select global_step, metrics from evals where trial_id = ? and attempt = ? order by eval_index",
                (trial_id, attempt)):
            value = json.loads(metrics).get(key)
            if value is not None and (value >= target if higher else value <= target):
                steps.append(step)
                break
    if not steps:
        raise SystemExit(f"rebudget: no re-run of {record['workload']} in {store} reaches its target")
    return statistics.median(steps), len(steps), len(rows)


def seconds_per_step(pacer, record, steps):
    with tempfile.TemporaryDirectory() as tmp:
        hparams = os.path.join(tmp, "hparams.json")
        with open(hparams, "w") as f:
            json.dump(record["best_point"]["hparams"], f)
        out = os.path.join(tmp, "run")
        cmd = [pacer, "run", "-w", record["workload"], "-a", record["best_point"]["algorithm"], "--hparams", hparams,
               "--seed", "1", "--max-steps", str(steps), "--eval-every", str(steps), "--ignore-targets",
               "--threads", "1", "-q", "--out", out]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        trial = json.load(open(os.path.join(out, "trial.json")))
        shown = " ".join(cmd[1:6] + ["--hparams", "<best point>"] + cmd[8:]).replace(out, "DIR")
        return trial["accumulated_submission_time"] / trial["steps"], "pacer " + shown


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--record", required=True)
    p.add_argument("--store", required=True)
    p.add_argument("--pacer", default="build/pacer")
    p.add_argument("--steps", type=int, default=100)
    a = p.parse_args()
    record = json.load(open(a.record))
    median_steps, reached, runs = steps_to_target(a.store, record)
    per_step, cmd = seconds_per_step(a.pacer, record, a.steps)
    budget = math.ceil(record["budget_factor"] * median_steps * per_step)
    record.setdefault("budget_under_load_s", record["budget_s"])
    record["budget_s"] = float(budget)
    record["budget_basis"] = {
        "rule": "budget_factor x median steps to target x seconds per step measured alone (tools/analysis/rebudget.py)",
        "median_steps_to_target": median_steps, "reruns_reaching": reached, "reruns": runs,
        "seconds_per_step_alone": round(per_step, 6), "measured_with": cmd}
    with open(a.record + ".tmp", "w") as f:
        f.write(json.dumps(record, indent=2) + "\n")
    os.replace(a.record + ".tmp", a.record)
    print(f"{record['workload']}: median steps to target {median_steps:g} ({reached}/{runs} re-runs), "
          f"{per_step * 1e3:.1f} ms/step alone -> budget {budget} s (was {record['budget_under_load_s']:g} s)")


if __name__ == "__main__":
    main()
