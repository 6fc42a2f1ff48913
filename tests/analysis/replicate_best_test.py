#!/usr/bin/env python3
"""Resuming tools/analysis/replicate_best.py, and its --stop-at-goal (CTest ReplicateBestResume).

Without --stop-at-goal: a seed whose trial ran to its end is read, not run again; a seed whose
trial was interrupted (trial.json with status "interrupted", what a kill at a session's end
leaves) is run again, and its steps come from the new run.
With --stop-at-goal: a seed's run is interrupted (SIGINT, as Ctrl-C) once its evals have crossed
the goal, and its steps are those of that first eval past the goal; an interrupted seed whose
evals had crossed the goal is read, one interrupted before is run again.
A fake pacer stands in for the real one: it writes the files `pacer run --out` writes, row by
row, and logs each call and whether it was interrupted.

  tests/analysis/replicate_best_test.py REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

# Seed s crosses the goal (0.88) at step 20 + s and, unless interrupted, goes on to step 200
# (about 9 s at 50 ms a row: long enough that --stop-at-goal's 0.5 s polling interrupts it first).
FAKE_PACER = r'''#!/usr/bin/env python3
import json, os, signal, sys, time
args = sys.argv[1:]
if "--help" in args:  # a pacer with `run --goal` (FAKE_PACER_GOAL=1) or an older one
    print("--goal FLOAT" if os.environ.get("FAKE_PACER_GOAL") == "1" else "--seed INT")
    sys.exit(0)
out = args[args.index("--out") + 1]
seed = int(args[args.index("--seed") + 1])
log = open(os.environ["FAKE_PACER_LOG"], "a")
log.write(f"seed {seed}\n")
log.flush()
os.makedirs(out, exist_ok=True)
def finish(status):
    with open(os.path.join(out, "trial.json"), "w") as f:
        json.dump({"status": status, "stop_reason": status}, f)
def interrupted(*_):
    finish("interrupted")
    log.write(f"seed {seed} interrupted\n")
    sys.exit(130)
signal.signal(signal.SIGINT, interrupted)
slow = os.environ.get("FAKE_PACER_SLOW") == "1"
with open(os.path.join(out, "eval_measurements.csv"), "w") as f:
    f.write("global_step,validation/accuracy\n10,0.5\n%d,0.9\n" % (20 + seed))
    f.flush()
    if "--goal" in args:  # pacer run --goal: ends at the first eval past it
        log.write(f"seed {seed} goal {args[args.index('--goal') + 1]} {args[args.index('--metric') + 1]}\n")
        finish("not_reached")
        sys.exit(0)
    if slow:
        for step in range(30, 200):
            time.sleep(0.05)
            f.write("%d,0.95\n" % step)
            f.flush()
finish("complete")
'''


def write_seed(folder, status, reached_at, accuracy=0.95):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "eval_measurements.csv"), "w") as f:
        f.write(f"global_step,validation/accuracy\n{reached_at},{accuracy}\n")
    with open(os.path.join(folder, "trial.json"), "w") as f:
        json.dump({"status": status, "stop_reason": "interrupted" if status == "interrupted" else "max_steps"}, f)


def replicate(root, tmp, pacer, study, out, log, *extra, slow=False, goal=False):
    env = dict(os.environ, FAKE_PACER_LOG=log, FAKE_PACER_SLOW="1" if slow else "0", FAKE_PACER_GOAL="1" if goal else "0")
    return subprocess.run([sys.executable, os.path.join(root, "tools", "analysis", "replicate_best.py"), study,
                           "--pacer", pacer, "--seeds", "3", "--out", out, *extra],
                          env=env, capture_output=True, text=True)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        pacer = os.path.join(tmp, "pacer")
        with open(pacer, "w") as f:
            f.write(FAKE_PACER)
        os.chmod(pacer, 0o755)
        study = os.path.join(tmp, "study")
        os.makedirs(study)
        with open(os.path.join(study, "scaling.json"), "w") as f:
            json.dump({"workload": "fmnist_mlp",
                       "goal": {"metric": "validation/accuracy", "value": 0.88, "higher_is_better": True},
                       "series": [{"name": "momentum+mean", "batch_sizes": [
                           {"batch_size": 128, "steps_to_result": 100, "best_hyperparameters": {"learning_rate": 0.1}}]}]},
                      f)

        # 1. Resuming without --stop-at-goal.
        out = os.path.join(study, "replicated")
        write_seed(os.path.join(out, "momentum+mean@b128", "seed_1"), "complete", 7)      # finished: read
        write_seed(os.path.join(out, "momentum+mean@b128", "seed_2"), "interrupted", 5)   # partial: run again
        log = os.path.join(tmp, "calls.log")
        done = replicate(root, tmp, pacer, study, out, log)
        if done.returncode != 0:
            print(done.stderr)
            return 1
        calls = open(log).read().split("\n")[:-1]
        steps = json.load(open(os.path.join(out, "replicated.json")))["results"][0]["steps_per_seed"]
        if calls != ["seed 2", "seed 3"]:
            problems.append(f"resume: expected seeds 2 (interrupted) and 3 (absent) run, seed 1 read; got {calls}")
        if steps != [7, 22, 23]:
            problems.append(f"resume: expected steps [7, 22, 23] (seed 2 from its new run), got {steps}")

        # 2. --stop-at-goal: seed 1 was interrupted after crossing the goal (read), seed 2 before
        # (run again); seeds 2 and 3 are interrupted once their evals cross it.
        out = os.path.join(study, "stopped")
        write_seed(os.path.join(out, "momentum+mean@b128", "seed_1"), "interrupted", 9)
        write_seed(os.path.join(out, "momentum+mean@b128", "seed_2"), "interrupted", 5, accuracy=0.5)
        log = os.path.join(tmp, "stopped.log")
        done = replicate(root, tmp, pacer, study, out, log, "--stop-at-goal", slow=True)
        if done.returncode != 0:
            print(done.stderr)
            return 1
        calls = open(log).read().split("\n")[:-1]
        steps = json.load(open(os.path.join(out, "replicated.json")))["results"][0]["steps_per_seed"]
        if calls != ["seed 2", "seed 2 interrupted", "seed 3", "seed 3 interrupted"]:
            problems.append(f"--stop-at-goal: expected seeds 2 and 3 run and interrupted at the goal, seed 1 "
                            f"(interrupted after crossing it) read; got {calls}")
        if steps != [9, 22, 23]:
            problems.append(f"--stop-at-goal: expected steps [9, 22, 23], got {steps}")

        # 2b. --stop-at-goal with a pacer that has `run --goal`: the goal is passed and the run ends
        # there by itself, no interrupt.
        out = os.path.join(study, "own_goal")
        log = os.path.join(tmp, "own_goal.log")
        done = replicate(root, tmp, pacer, study, out, log, "--stop-at-goal", slow=True, goal=True)
        if done.returncode != 0:
            print(done.stderr)
            return 1
        calls = open(log).read().split("\n")[:-1]
        steps = json.load(open(os.path.join(out, "replicated.json")))["results"][0]["steps_per_seed"]
        want = [line for s in (1, 2, 3) for line in (f"seed {s}", f"seed {s} goal 0.88 validation/accuracy")]
        if calls != want:
            problems.append(f"--stop-at-goal with run --goal: expected {want}, got {calls}")
        if steps != [21, 22, 23]:
            problems.append(f"--stop-at-goal with run --goal: expected steps [21, 22, 23], got {steps}")

        # 3. --only-batch-sizes leaves out the others: nothing to run, nothing replicated.
        done = replicate(root, tmp, pacer, study, os.path.join(study, "none"), log, "--only-batch-sizes", "256")
        results = json.load(open(os.path.join(study, "none", "replicated.json")))["results"]
        if done.returncode != 0 or results:
            problems.append(f"--only-batch-sizes 256: expected no result, got {results} ({done.stderr.strip()})")
    for p in problems:
        print("FAIL:", p)
    if problems:
        return 1
    print("replicate_best: a finished seed is read, an interrupted one run again; --stop-at-goal interrupts "
          "a run past the goal and reads a seed interrupted past it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
