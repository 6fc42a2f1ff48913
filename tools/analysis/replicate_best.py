#!/usr/bin/env python3
"""Re-run the best trial of every (series, batch size) of a `pacer scale` study with fresh seeds.

A study's steps-to-result is the minimum over its trials, so one lucky seed can decide a
comparison. This takes the best metaparameters from OUT/scaling.json, trains them again with
--seeds seeds each, evaluating every --eval-every steps (finer than the study's evals), and
reports the steps to the goal per seed and their median, so that two series (e.g. momentum+mean
and momentum+adasum) are compared on equal, replicated footing.

  tools/analysis/replicate_best.py runs/adasum_vs_mean --virtual-workers 8 --seeds 5 --eval-every 5 \
      --max-steps 400 --out runs/adasum_vs_mean/replicated

With --worker-batch N (a study run with `pacer scale --worker-batch N`) batch size B runs B / N
virtual workers. --eval-every 0 evaluates every max(1, S / --resolution) steps, S the study's
steps-to-result of that point: a fixed relative resolution at every batch size. Resumable: a seed
whose folder holds a finished trial (trial.json, not "interrupted") is read, not run again; an
interrupted one is run again; --only SERIES restricts
the series (a comma-separated list), --only-batch-sizes B,... the batch sizes.

--stop-at-goal interrupts a seed's run (Ctrl-C, as a user would) once its evals have crossed the
goal, instead of training on to --max-steps: what is measured, the first eval past the goal, is
already written, and the run is deterministic on one machine (one thread, the same seed), so the
rows up to it are those of a run to the end (docs/data_parallel.md says how that was checked).
With it, a seed whose run was interrupted after its evals crossed the goal counts as finished too;
one interrupted before is run again. A pacer that has `pacer run --goal` (since 2026-12-07) is
given the goal instead and ends the run itself at the same eval (no signal); an older one, such
as issue 62's frozen binary, is interrupted as above.

Series names follow `pacer scale`: ALGORITHM[+COMBINE[-delta]]. Writes OUT/replicated.json and a
Markdown table on standard output.
"""
import argparse
import csv
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time


def series_options(name):
    """pacer run options of a series name such as momentum+adasum-delta."""
    if "+" not in name:
        return name, []
    algorithm, combine = name.split("+", 1)
    if combine.endswith("-delta"):
        return algorithm, ["--combine", combine[: -len("-delta")], "--adasum-mode", "delta"]
    return algorithm, ["--combine", combine]


def finished_trial(folder):
    """Whether the seed's trial ran to its end. A trial stopped by Ctrl-C or a kill (the end of a
    session) writes trial.json too, with status "interrupted": what it measured is partial, so
    the seed is run again (its run is deterministic on one machine: one thread, the same seed;
    across machines the last bits may differ, docs/data_parallel.md)."""
    try:
        with open(os.path.join(folder, "trial.json")) as f:
            return json.load(f).get("status") != "interrupted"
    except (OSError, ValueError):
        return False


def first_step_better(rows, metric, goal, higher):
    for row in rows:
        value = float(row[metric])
        if (value > goal) if higher else (value < goal):
            return int(row["global_step"])
    return None


def crossed_goal(folder, metric, goal, higher):
    """The step of the first eval past the goal among the rows the seed's run has written so far
    (whole lines only: the run may be writing the next one), or None."""
    try:
        with open(os.path.join(folder, "eval_measurements.csv")) as f:
            lines = [line for line in f.read().splitlines(keepends=True) if line.endswith("\n")]
        return first_step_better(list(csv.DictReader(lines)), metric, goal, higher)
    except (OSError, KeyError, ValueError):
        return None


def runs_to_a_goal(pacer):
    """Whether this pacer's `run` takes --goal/--metric (it then stops at the goal by itself)."""
    try:
        done = subprocess.run([pacer, "run", "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--goal" in done.stdout


def run_until_goal(cmd, folder, metric, goal, higher, poll_sec=0.5):
    """Runs one seed; once its evals cross the goal, interrupts it as Ctrl-C would (pacer writes its
    trial.json, status "interrupted", and exits). Returns (exit status, stderr, whether it was
    stopped at the goal)."""
    with tempfile.TemporaryFile(mode="w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, text=True)
        stopped = False
        while p.poll() is None:
            if crossed_goal(folder, metric, goal, higher) is not None:
                p.send_signal(signal.SIGINT)
                try:
                    p.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                stopped = True
                break
            time.sleep(poll_sec)
        err.seek(0)
        return p.returncode, err.read(), stopped


def batch_size_list(text):
    """--only-batch-sizes: positive integers, comma-separated (argparse exits 2 naming the option)."""
    try:
        sizes = {int(b) for b in text.split(",")}
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: not a comma-separated list of batch sizes")
    if min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: batch sizes are positive")
    return sizes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("study_dir", help="folder written by pacer scale --out (has scaling.json)")
    p.add_argument("--pacer", default="build/pacer")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--eval-every", type=int, default=5)
    p.add_argument("--max-steps", type=int, default=400)
    p.add_argument("--virtual-workers", type=int, default=1)
    p.add_argument("--worker-batch", type=int, help="examples per virtual worker (batch / N workers)")
    p.add_argument("--resolution", type=int, default=100,
                   help="with --eval-every 0: evals per study steps-to-result")
    p.add_argument("--only", help="comma-separated series names")
    p.add_argument("--only-batch-sizes", type=batch_size_list, help="comma-separated batch sizes")
    p.add_argument("--stop-at-goal", action="store_true",
                   help="interrupt a seed once its evals cross the goal (what is measured is written by then)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out", help="default: STUDY_DIR/replicated")
    a = p.parse_args()
    try:
        report = json.load(open(os.path.join(a.study_dir, "scaling.json")))
    except (OSError, ValueError) as e:
        sys.exit(f"replicate_best.py: {a.study_dir}/scaling.json: {e}")
    out = a.out or os.path.join(a.study_dir, "replicated")
    goal = report["goal"]
    metric, value, higher = goal["metric"], goal["value"], goal["higher_is_better"]
    results = []
    only = set(a.only.split(",")) if a.only else None
    only_batch_sizes = a.only_batch_sizes
    own_goal = a.stop_at_goal and runs_to_a_goal(a.pacer)
    for series in report["series"]:
        if only is not None and series["name"] not in only:
            continue
        algorithm, extra = series_options(series["name"])
        for row in series["batch_sizes"]:
            hp = row["best_hyperparameters"]
            if not hp or (only_batch_sizes is not None and row["batch_size"] not in only_batch_sizes):
                continue
            workers = a.virtual_workers
            if a.worker_batch:
                if row["batch_size"] % a.worker_batch:
                    sys.exit(f"replicate_best.py: batch size {row['batch_size']} is not a multiple of "
                             f"--worker-batch {a.worker_batch}")
                workers = row["batch_size"] // a.worker_batch
            workers_options = ["--virtual-workers", str(workers)] if workers > 1 and extra else []
            eval_every = a.eval_every or max(1, row["steps_to_result"] // a.resolution)
            steps = []
            for seed in range(1, a.seeds + 1):
                folder = os.path.join(out, f"{series['name']}@b{row['batch_size']}", f"seed_{seed}")
                cmd = [a.pacer, "run", "-w", report["workload"], "-a", algorithm, "--seed", str(seed),
                       "--batch-size", str(row["batch_size"]), "--max-steps", str(a.max_steps),
                       "--eval-every", str(eval_every), "--ignore-targets", "--threads", str(a.threads), "-q",
                       "--budget", "1e9",  # steps decide, as in the study: no time budget
                       "--out", folder] + extra + workers_options
                for k, v in hp.items():
                    cmd += ["--set", f"{k}={v!r}"]
                done_before = finished_trial(folder) or (
                    a.stop_at_goal and crossed_goal(folder, metric, value, higher) is not None)
                if not done_before:
                    if os.path.isdir(folder):  # an interrupted seed: its partial files are replaced
                        for name in os.listdir(folder):
                            os.remove(os.path.join(folder, name))
                    if own_goal:  # the run ends at the first eval past the goal by itself
                        done = subprocess.run(cmd + ["--goal", repr(value), "--metric", metric],
                                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                        code, err, stopped = done.returncode, done.stderr, False
                    elif a.stop_at_goal:
                        code, err, stopped = run_until_goal(cmd, folder, metric, value, higher)
                    else:
                        done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                        code, err, stopped = done.returncode, done.stderr, False
                    if code != 0 and not stopped:
                        sys.exit(f"replicate_best.py: {' '.join(cmd)} failed: {err.strip()}")
                with open(os.path.join(folder, "eval_measurements.csv")) as f:
                    steps.append(first_step_better(list(csv.DictReader(f)), metric, value, higher))
                print(f"{series['name']} b{row['batch_size']} seed {seed}: {steps[-1]}", file=sys.stderr)
            reached = sorted(s for s in steps if s is not None)
            results.append({
                "series": series["name"], "batch_size": row["batch_size"], "hyperparameters": hp,
                "virtual_workers": workers, "eval_every": eval_every,
                "study_steps_to_result": row["steps_to_result"], "steps_per_seed": steps,
                "reached": len(reached), "median": statistics.median(reached) if len(reached) == len(steps) else None,
                "min": reached[0] if reached else None, "max": reached[-1] if reached else None,
            })
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "replicated.json"), "w") as f:
        json.dump({"goal": goal, "seeds": a.seeds, "eval_every": a.eval_every, "max_steps": a.max_steps,
                   "virtual_workers": a.virtual_workers, "worker_batch": a.worker_batch, "results": results}, f, indent=2)
    print("| series | batch size | study's steps | eval every | steps per seed | median |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in results:
        per_seed = ", ".join("never" if s is None else str(s) for s in r["steps_per_seed"])
        median = "-" if r["median"] is None else f"{r['median']:g}"
        print(f"| {r['series']} | {r['batch_size']} | {r['study_steps_to_result']} | {r['eval_every']} | {per_seed} "
              f"| {median} |")


if __name__ == "__main__":
    main()
