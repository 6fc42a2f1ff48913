#!/usr/bin/python3
"""Spearman rank correlation between two leaderboards written by `pacer score --out` (scores.json).

    tools/analysis/rank_correlation.py runs/leaderboard/score_external/scores.json runs/leaderboard/score_external_seed1/scores.json

Ranks submissions by benchmark score (ties share their average rank) in each file, over the
submissions both contain, and prints both rankings side by side, Spearman's rho, Kendall's tau-b
and how many submissions changed rank. A file may also be a published leaderboard written as
{"source": "...", "submissions": {"name": score, ...}} under Pacer's algorithm names
(docs/results/leaderboard/algoperf/). Exit status 2 on unreadable input.
"""
import json
import sys


def scores(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"rank_correlation.py: cannot read {path}: {e}")
    subs = data.get("submissions")
    if isinstance(subs, dict):
        return {name: s["score"] if isinstance(s, dict) else float(s) for name, s in subs.items()}
    if isinstance(subs, list):
        return {s["name"]: s["score"] for s in subs}
    sys.exit(f"rank_correlation.py: {path} has no 'submissions'")


def ranks(values):
    """Rank 1 = highest score; ties get their average rank."""
    order = sorted(values, key=lambda k: -values[k])
    out, i = {}, 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in order[i:j + 1]:
            out[k] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a, b):
    names = list(a)
    n = len(names)
    ma, mb = sum(a.values()) / n, sum(b.values()) / n
    cov = sum((a[k] - ma) * (b[k] - mb) for k in names)
    va = sum((a[k] - ma) ** 2 for k in names)
    vb = sum((b[k] - mb) ** 2 for k in names)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else float("nan")


def kendall_tau_b(a, b):
    """Ties as scipy.stats.kendalltau (tau-b)."""
    names = list(a)
    sign = lambda v: (v > 0) - (v < 0)
    s = ua = ub = 0
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            x, y = sign(a[names[i]] - a[names[j]]), sign(b[names[i]] - b[names[j]])
            s += x * y
            ua += x != 0
            ub += y != 0
    return s / (ua * ub) ** 0.5 if ua > 0 and ub > 0 else float("nan")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sa, sb = scores(sys.argv[1]), scores(sys.argv[2])
    common = sorted(set(sa) & set(sb))
    if len(common) < 2:
        sys.exit("rank_correlation.py: fewer than two submissions in common")
    ra, rb = ranks({k: sa[k] for k in common}), ranks({k: sb[k] for k in common})
    print("| submission | score A | rank A | score B | rank B |")
    print("| --- | --- | --- | --- | --- |")
    for k in sorted(common, key=lambda k: ra[k]):
        print(f"| {k} | {sa[k]:.4f} | {ra[k]:g} | {sb[k]:.4f} | {rb[k]:g} |")
    moved = sum(1 for k in common if ra[k] != rb[k])
    print(f"\nSpearman rho = {spearman(ra, rb):.3f}, Kendall tau-b = {kendall_tau_b({k: sa[k] for k in common}, {k: sb[k] for k in common}):.3f} over "
          f"{len(common)} submissions; {moved} changed rank")


if __name__ == "__main__":
    main()
