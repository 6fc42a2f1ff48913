#!/usr/bin/env python3
"""Scores AlgoPerf's published log trees with `pacer score` and compares every submission's score
with the leaderboard tables published beside the logs (mlcommons/submissions_algorithms).

    git clone https://github.com/mlcommons/submissions_algorithms /tmp/sa
    tools/checks/check_published_scores.py /tmp/sa [--pacer build/pacer]

Three leaderboards, 19 scores: v0.5 external tuning (previous_leaderboards/algoperf_v05/README.md),
v0.5 self-tuning (same README), v0.6 external tuning (README.md). Each is scored twice: with
Pacer's built-in targets, and with the repository's own frozen targets file (--targets
scoring/workload_targets*.json). The logs are read as published: nothing is cleaned first.
Exit status 0 when every published score is reproduced to its 4 printed decimals, else 1.
Not part of CI: it needs the repository's log trees (about 4400 eval_measurements.csv files).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

LEADERBOARDS = [
    # (name, README with the table, log tree, tree folder in table links, pacer flags, targets file)
    ("v0.5 external tuning", "previous_leaderboards/algoperf_v05/README.md",
     "previous_leaderboards/algoperf_v05/logs/external_tuning", "external_tuning", ["--rules", "v0.5"],
     "scoring/workload_targets_v05.json"),
    ("v0.5 self-tuning", "previous_leaderboards/algoperf_v05/README.md",
     "previous_leaderboards/algoperf_v05/logs/self_tuning", "self_tuning", ["--rules", "v0.5", "--self-tuning"],
     "scoring/workload_targets_v05.json"),
    ("v0.6 external tuning", "README.md",
     "previous_leaderboards/algoperf_v06/logs/external_tuning", "external_tuning", ["--rules", "v0.6"],
     "scoring/workload_targets.json"),
]


def published_scores(readme_path, ruleset):
    """{submission folder: score} from the table rows of a README (tables inside HTML comments,
    which are not published yet, are left out)."""
    text = re.sub(r"<!--.*?-->", "", open(readme_path, encoding="utf-8").read(), flags=re.S)
    scores = {}
    for line in text.splitlines():
        score = re.search(r"\*\*(\d\.\d{4})\*\*\s*\|\s*$", line)
        folder = re.search(r"logs/" + ruleset + r"/([A-Za-z0-9_]+)/?\)", line)
        if score and folder:
            scores[folder.group(1)] = float(score.group(1))
    return scores


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository", help="a checkout of mlcommons/submissions_algorithms")
    parser.add_argument("--pacer", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "pacer"))
    args = parser.parse_args()
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, readme, tree, ruleset, flags, targets in LEADERBOARDS:
            expected = published_scores(os.path.join(args.repository, readme), ruleset)
            if not expected:
                print(f"{name}: no published scores found in {readme}")
                failures += 1
                continue
            root = os.path.join(args.repository, tree)
            submissions = [os.path.join(root, s) for s in sorted(expected)]
            for with_file in (False, True):
                out = os.path.join(tmp, re.sub(r"\W+", "_", name) + ("_file" if with_file else ""))
                cmd = [args.pacer, "score", *submissions, *flags, "--out", out]
                if with_file:
                    cmd += ["--targets", os.path.join(args.repository, targets)]
                run = subprocess.run(cmd, capture_output=True, text=True)
                label = f"{name} ({'--targets ' + targets if with_file else 'built-in targets'})"
                if run.returncode != 0:
                    print(f"{label}: pacer score failed ({run.returncode}): {run.stderr.strip()}")
                    failures += 1
                    continue
                got = {s["name"]: s["score"] for s in json.load(open(os.path.join(out, "scores.json")))["submissions"]}
                bad = [f"{s}: published {v:.4f}, pacer {got.get(s, float('nan')):.4f}"
                       for s, v in expected.items() if s not in got or round(got[s], 4) != v]
                warnings = sum(1 for l in run.stderr.splitlines() if l.startswith("pacer: warning"))
                print(f"{label}: {len(expected) - len(bad)}/{len(expected)} scores reproduced, {warnings} warnings")
                for line in bad:
                    print("  " + line)
                failures += len(bad)
                checked += len(expected) if not with_file else 0
    print(f"{checked} published scores, {'all reproduced' if failures == 0 else str(failures) + ' not reproduced'}")
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
