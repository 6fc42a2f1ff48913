#!/usr/bin/env python3
"""Runs every published PyTorch submission of AlgoPerf on Pacer, unchanged, and tabulates what happened.

Usage: published_submissions.py CLONE [--pacer build/pacer] [--workload fmnist_mlp] [--steps 40]
                                [--out runs/published] [--only SUBSTRING]

CLONE is a local copy of mlcommons/submissions_algorithms (a clone or an export of its tree; this
script never commits or copies its code into this repository). Every `submission.py` that imports
torch under previous_leaderboards/algoperf_v05, previous_leaderboards/algoperf_v06 and submissions/
is run from its place in the clone (so a submission that imports by its repository path finds it)
as `pacer run -w WORKLOAD -a FOLDER/ --max-steps STEPS --ignore-targets`: self-tuning folders with
--self-tuning, external ones with one point of their tuning_search_space.json (each hyperparameter's
first feasible point, or the geometric (log) or arithmetic middle of its range). Prints a Markdown
table (folder, ruleset, result, steps, the first line of the error) and writes OUT/results.json
and each run's stderr to OUT/logs/.
"""
import argparse
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("clone", type=pathlib.Path)
    parser.add_argument("--pacer", default="build/pacer")
    parser.add_argument("--workload", default="fmnist_mlp")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/published"))
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    if not args.clone.is_dir():
        sys.exit(f"published_submissions.py: {args.clone}: not a folder (a local copy of mlcommons/submissions_algorithms)")
    pacer = os.path.abspath(args.pacer)
    (args.out / "logs").mkdir(parents=True, exist_ok=True)
    rows = []
    for folder in submissions(args.clone.resolve(), args.only):
        rel = folder.relative_to(args.clone.resolve()).as_posix()
        self_tuning = "/self_tuning/" in f"/{rel}/"
        command = [pacer, "run", "-w", args.workload, "-a", str(folder) + "/", "--max-steps", str(args.steps),
                   "--eval-every", str(args.steps), "--ignore-targets", "--threads", "1", "-q"]
        with tempfile.TemporaryDirectory() as work:
            if self_tuning:
                command.append("--self-tuning")
            elif (folder / "tuning_search_space.json").is_file():
                try:
                    point = one_point(folder / "tuning_search_space.json")
                except (ValueError, KeyError, TypeError) as e:
                    rows.append({"submission": rel, "ruleset": "external", "result": "no point", "steps": 0,
                                 "error": f"tuning_search_space.json: {e}"})
                    continue
                hparams = pathlib.Path(work) / "hparams.json"
                hparams.write_text(json.dumps(point))
                command += ["--hparams", str(hparams)]
            command += ["--out", str(pathlib.Path(work) / "out")]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout, cwd=work)
                code, out, err = done.returncode, done.stdout, done.stderr
            except subprocess.TimeoutExpired:
                code, out, err = 124, "", f"timed out after {args.timeout} s"
            trial = pathlib.Path(work) / "out" / "trial.json"
            steps = 0
            if trial.is_file():
                try:
                    steps = int(json.loads(trial.read_text()).get("steps", 0) or 0)
                except (ValueError, AttributeError):
                    steps = 0
        name = rel.replace("/", "__")
        (args.out / "logs" / f"{name}.err").write_text(err)
        rows.append({"submission": rel, "ruleset": "self" if self_tuning else "external",
                     "result": "trains" if code == 0 else f"exit {code}", "steps": steps,
                     "error": "" if code == 0 else first_error(err).replace(str(args.clone.resolve()) + "/", "CLONE/")})
        print(f"{rel}: {rows[-1]['result']}", file=sys.stderr, flush=True)
    (args.out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
    print(f"| submission | ruleset | on {args.workload}, {args.steps} steps | steps | first error |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        error = r["error"].replace("|", "\\|")
        print(f"| {r['submission']} | {r['ruleset']} | {r['result']} | {r['steps']} | {error} |")
    trains = sum(r["result"] == "trains" for r in rows)
    print(f"\n{trains} of {len(rows)} train")


if __name__ == "__main__":
    main()
