#!/usr/bin/env python3
"""Runs every published PyTorch submission of AlgoPerf on Pacer, unchanged, and tabulates what happened.

Usage: published_submissions.py CLONE [--pacer [LABEL=]PATH ...] [--workload W1,W2] [--steps 40]
                                [--budget SECONDS] [--out runs/published] [--only SUBSTRING]

CLONE is a local copy of mlcommons/submissions_algorithms (a clone or an export of its tree; this
script never commits or copies its code into this repository). Every `submission.py` that imports
torch under previous_leaderboards/algoperf_v05, previous_leaderboards/algoperf_v06 and submissions/
is run from its place in the clone (so a submission that imports by its repository path finds it)
as `pacer run -w WORKLOAD -a FOLDER/ --max-steps STEPS --ignore-targets`: self-tuning folders with
--self-tuning, external ones with one point of their tuning_search_space.json (each hyperparameter's
first feasible point, or the geometric (log) or arithmetic middle of its range). Each submission runs
with every --pacer (e.g. `--pacer 1.13=build/pacer --pacer 2.15=build-torch2.15.0/pacer`) on every
--workload. Prints a Markdown table (a row per submission, a column per Pacer and workload: the
steps run, or the exit status), the first error of each failure, and the count that trains
everywhere; writes OUT/results.json and each run's stderr to OUT/logs/.
"""
import argparse
import concurrent.futures
import json
import math
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOTS = ("previous_leaderboards/algoperf_v05", "previous_leaderboards/algoperf_v06", "submissions")


def submissions(clone, only):
    found = []
    for root in ROOTS:
        base = clone / root
        if not base.is_dir():
            continue
        for file in sorted(base.rglob("submission.py")):
            text = file.read_text(errors="replace")
            if not re.search(r"^\s*(import torch|from torch)", text, re.M):
                continue
            rel = file.parent.relative_to(clone).as_posix()
            if only and only not in rel:
                continue
            found.append(file.parent)
    return found


def one_point(space_file):
    """A point of an AlgoPerf search space: a feasible point, else the middle of the range."""
    space = json.loads(space_file.read_text())
    if isinstance(space, list):  # a list of points
        return space[0]
    point = {}
    for name, spec in space.items():
        if "feasible_points" in spec:
            point[name] = spec["feasible_points"][0]
        elif spec.get("scaling") == "log":
            point[name] = math.sqrt(spec["min"] * spec["max"])
        else:
            point[name] = (spec["min"] + spec["max"]) / 2
    return point


def shortened(line, head=200, tail=180):
    """A long message's start and end (where Pacer's hints are)."""
    return line if len(line) <= head + tail + 5 else line[:head] + " ... " + line[-tail:]


def first_error(stderr):
    """The error Pacer reported (not a warning before it), its start and end."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("pacer: error:"):
            return shortened(line)
    others = [line for line in lines if not line.startswith("pacer: warning:")]
    return shortened((others or lines or [""])[-1])


def run_one(pacer, folder, rel, workload, args):
    """One submission on one workload with one Pacer: its row (result, steps, the first error)."""
    self_tuning = "/self_tuning/" in f"/{rel}/"
    command = [pacer, "run", "-w", workload, "-a", str(folder) + "/", "--max-steps", str(args.steps),
               "--eval-every", str(args.steps), "--ignore-targets", "--threads", "1", "-q"]
    if args.budget:
        command += ["--budget", str(args.budget)]
    row = {"submission": rel, "ruleset": "self" if self_tuning else "external", "workload": workload}
    with tempfile.TemporaryDirectory() as work:
        if self_tuning:
            command.append("--self-tuning")
        elif (folder / "tuning_search_space.json").is_file():
            try:
                point = one_point(folder / "tuning_search_space.json")
            except (ValueError, KeyError, TypeError) as e:
                return {**row, "result": "no point", "steps": 0, "error": f"tuning_search_space.json: {e}", "stderr": ""}
            hparams = pathlib.Path(work) / "hparams.json"
            hparams.write_text(json.dumps(point))
            command += ["--hparams", str(hparams)]
        command += ["--out", str(pathlib.Path(work) / "out")]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, cwd=work)
            code, err = done.returncode, done.stderr
        except subprocess.TimeoutExpired:
            code, err = 124, f"timed out after {args.timeout} s"
        trial = pathlib.Path(work) / "out" / "trial.json"
        steps = 0
        if trial.is_file():
            try:
                steps = int(json.loads(trial.read_text()).get("steps", 0) or 0)
            except (ValueError, AttributeError):
                steps = 0
    return {**row, "result": "trains" if code == 0 else f"exit {code}", "steps": steps,
            "error": "" if code == 0 else first_error(err).replace(str(args.clone.resolve()) + "/", "CLONE/"),
            "stderr": err}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=pathlib.Path)
    parser.add_argument("--pacer", action="append",
                        help="PATH or LABEL=PATH (repeat: one column group each, e.g. 1.13=build/pacer); default build/pacer")
    parser.add_argument("--workload", default="fmnist_mlp", help="one or several, comma-separated")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--budget", type=float, help="the time budget (s) of each run (default: the workload's)")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/published"))
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time (each on one thread)")
    args = parser.parse_args()
    if not args.clone.is_dir():
        sys.exit(f"published_submissions.py: {args.clone}: not a folder (a local copy of mlcommons/submissions_algorithms)")
    pacers = []
    for value in args.pacer or ["build/pacer"]:
        label, _, path = value.rpartition("=")
        pacers.append((label or path, os.path.abspath(path)))
    for label, path in pacers:
        if not os.access(path, os.X_OK):
            sys.exit(f"published_submissions.py: --pacer {label}={path}: not an executable")
    workloads = [w for w in args.workload.split(",") if w]
    (args.out / "logs").mkdir(parents=True, exist_ok=True)
    tasks = []
    for folder in submissions(args.clone.resolve(), args.only):
        rel = folder.relative_to(args.clone.resolve()).as_posix()
        tasks += [(folder, rel, label, pacer, workload) for label, pacer in pacers for workload in workloads]

    def run_task(task):
        folder, rel, label, pacer, workload = task
        row = run_one(pacer, folder, rel, workload, args)
        row["pacer"] = label
        name = f"{rel.replace('/', '__')}__{label}__{workload}"
        (args.out / "logs" / f"{name}.err").write_text(row.pop("stderr"))
        print(f"{rel} [{label}, {workload}]: {row['result']} ({row['steps']} steps)", file=sys.stderr, flush=True)
        return row

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        rows = list(pool.map(run_task, tasks))  # in the tasks' order, whatever order they end in
    (args.out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    columns = [(label, w) for label, _ in pacers for w in workloads]
    print("Each cell: the steps run of " + str(args.steps) + " (the submission trained), or the exit status.\n")
    print("| submission | ruleset | " + " | ".join(f"{label}: {w}" for label, w in columns) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in columns) + " |")
    by_key = {(r["submission"], r["pacer"], r["workload"]): r for r in rows}
    subs = list(dict.fromkeys(r["submission"] for r in rows))
    for sub in subs:
        ruleset = next(r["ruleset"] for r in rows if r["submission"] == sub)
        cells = []
        for label, w in columns:
            r = by_key[(sub, label, w)]
            cells.append(str(r["steps"]) if r["result"] == "trains" else r["result"])
        print(f"| {sub} | {ruleset} | " + " | ".join(cells) + " |")
    print("\nThe first error of each failing submission, per Pacer (the workloads where it happened):\n")
    for sub in subs:
        for label, _ in pacers:
            errors = {}
            for w in workloads:
                r = by_key[(sub, label, w)]
                if r["result"] != "trains":
                    errors.setdefault(r["error"], []).append(w)
            for error, where in errors.items():
                print(f"- {sub} [{label}; {', '.join(where)}]: {error}")
    print()
    for label, _ in pacers:
        trains = [sub for sub in subs if all(by_key[(sub, label, w)]["result"] == "trains" for w in workloads)]
        print(f"{label}: {len(trains)} of {len(subs)} train on every workload ({', '.join(workloads)})")


if __name__ == "__main__":
    main()
