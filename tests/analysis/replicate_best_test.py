#!/usr/bin/env python3
"""Resuming tools/analysis/replicate_best.py (CTest ReplicateBestResume): a seed whose trial ran to
its end is read, not run again; a seed whose trial was interrupted (trial.json with status
"interrupted", what a kill at a session's end leaves) is run again, and its steps come from the
new run. A fake pacer stands in for the real one: it writes the files `pacer run --out` writes and
logs each call.

  tests/analysis/replicate_best_test.py REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

FAKE_PACER = r'''#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
out = args[args.index("--out") + 1]
seed = int(args[args.index("--seed") + 1])
with open(os.environ["FAKE_PACER_LOG"], "a") as log:
    log.write(f"seed {seed}\n")
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "eval_measurements.csv"), "w") as f:
    f.write("global_step,validation/accuracy\n10,0.5\n%d,0.9\n" % (20 + seed))
with open(os.path.join(out, "trial.json"), "w") as f:
    json.dump({"status": "complete", "stop_reason": "max_steps"}, f)
'''


def write_seed(folder, status, reached_at):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "eval_measurements.csv"), "w") as f:
        f.write(f"global_step,validation/accuracy\n{reached_at},0.95\n")
    with open(os.path.join(folder, "trial.json"), "w") as f:
        json.dump({"status": status, "stop_reason": "interrupted" if status == "interrupted" else "max_steps"}, f)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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
        out = os.path.join(study, "replicated")
        write_seed(os.path.join(out, "momentum+mean@b128", "seed_1"), "complete", 7)      # finished: read
        write_seed(os.path.join(out, "momentum+mean@b128", "seed_2"), "interrupted", 5)   # partial: run again
        log = os.path.join(tmp, "calls.log")
        done = subprocess.run([sys.executable, os.path.join(root, "tools", "analysis", "replicate_best.py"), study,
                               "--pacer", pacer, "--seeds", "3", "--out", out],
                              env=dict(os.environ, FAKE_PACER_LOG=log), capture_output=True, text=True)
        if done.returncode != 0:
            print(done.stderr)
            return 1
        calls = open(log).read().split("\n")[:-1]
        steps = json.load(open(os.path.join(out, "replicated.json")))["results"][0]["steps_per_seed"]
        problems = []
        if calls != ["seed 2", "seed 3"]:
            problems.append(f"runs: expected seeds 2 (interrupted) and 3 (absent) run, seed 1 read; got {calls}")
        if steps != [7, 22, 23]:
            problems.append(f"steps per seed: expected [7, 22, 23] (seed 2 from its new run), got {steps}")
        for p in problems:
            print("FAIL:", p)
        if problems:
            return 1
        print("replicate_best resume: a finished seed is read, an interrupted one is run again")
        return 0


if __name__ == "__main__":
    sys.exit(main())
