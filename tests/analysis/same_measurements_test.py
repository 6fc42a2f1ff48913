#!/usr/bin/env python3
"""Telling whether two runs measured the same thing (CTest SameMeasurements):
tools/analysis/same_measurements.py on made-up eval_measurements.csv files. Times may differ; a
run stopped at its goal (fewer rows) agrees with the whole run on the rows both have; one
differing digit in a measured column, or a missing file, does not pass (exit 1 and 2).

  tests/analysis/same_measurements_test.py REPO_ROOT
"""
import os
import subprocess
import sys
import tempfile

HEADER = "accumulated_eval_time,accumulated_submission_time,global_step,score,total_duration,validation/accuracy,validation/loss"


def run_folder(root, name, rows):
    folder = os.path.join(root, name)
    os.makedirs(folder)
    with open(os.path.join(folder, "eval_measurements.csv"), "w") as f:
        f.write(HEADER + "\n" + "\n".join(rows) + "\n")
    return folder


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    tool = [sys.executable, os.path.join(root, "tools", "analysis", "same_measurements.py")]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        whole = run_folder(tmp, "whole", ["0.1,1.0,1,1.0,1.5,0.50,1.20", "0.2,2.0,10,2.0,2.9,0.81,0.52",
                                          "0.3,3.0,20,3.0,4.1,0.88125,0.40"])
        stopped = run_folder(tmp, "stopped", ["0.4,0.6,1,0.6,0.9,0.50,1.20", "0.5,1.1,10,1.1,1.8,0.81,0.52"])
        other = run_folder(tmp, "other", ["0.1,1.0,1,1.0,1.5,0.50,1.20", "0.2,2.0,10,2.0,2.9,0.81,0.52",
                                          "0.3,3.0,20,3.0,4.1,0.88126,0.40"])
        empty = run_folder(tmp, "empty", [])

        def check(args, want_code, want_text, what):
            r = subprocess.run(tool + args, capture_output=True, text=True)
            if r.returncode != want_code or want_text not in r.stdout + r.stderr:
                failures.append(f"{what}: exit {r.returncode}, output {r.stdout + r.stderr!r}")

        check([whole, stopped], 0, "2 rows identical in 3 measured columns", "times differ, rows a prefix")
        check([whole, stopped, whole, other], 1, "row 3 (step 20) differs in validation/accuracy: 0.88125 vs 0.88126",
              "one digit")
        check([whole, empty], 1, "no rows to compare", "an empty log")
        check([whole, os.path.join(tmp, "missing")], 2, "eval_measurements.csv", "a missing run")
        check(["--whole", whole, stopped], 1, "3 and 2 rows", "--whole: a prefix is not the whole run")
        check(["--whole", whole, whole], 0, "3 rows identical", "--whole: the same run")
        check([whole], 2, "usage", "an odd number of folders")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
