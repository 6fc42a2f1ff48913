#!/usr/bin/python3
"""Pacer's ranking of AlgoPerf's 2026 self-tuning PyTorch submissions beside AlgoPerf's own.

The analysis pre-registered in docs/algoperf_2026_comparison.md (fixed before any Pacer run of
these submissions). Both sides are scored by `pacer score` (AlgoPerf's v0.6 self-tuning rules),
each over its own seven entries only, so a performance profile compares the same entries on both
sides; this script then bootstraps over studies on both sides and compares the rankings.

    tools/analysis/algoperf_2026_comparison.py --pacer build-torch2.15.0/pacer \\
        --algoperf-logs ~/submissions_algorithms/logs/self_tuning \\
        --store runs/algoperf_2026/board.db --out docs/results/algoperf_2026

--algoperf-logs: logs/self_tuning of a local copy of mlcommons/submissions_algorithms, branch
aliu_scoring_plots (the logs behind its analysis/data/leaderboard.csv; never commit them).
--store: the Pacer board store of the self-tuning runs (`pacer board --rulesets self`).
--check-algoperf-only: score the AlgoPerf side and check it against the published leaderboard
(no store needed; what the pre-registration commit ran).

Writes <out>/comparison.json and prints a Markdown table. Exit 2 on unreadable input.
"""
import argparse
import csv
import json
import math
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rank_correlation import kendall_tau_b, spearman  # noqa: E402

# Pacer's entry (the submission folder's name, or the built-in) -> AlgoPerf's log folder.
PAIRS = {
    "ademamix": "ademamix",
    "lion": "lion",
    "schedule_free_adamw": "schedule_free_adamw",
    "schedule_free_adamw_v2": "schedule_free_adamw_v2",
    "muon_torch_replicated_torch_hps": "muon_torch",
    "muon_torch_replicated_jax_hps": "muon_torch_jax_hps_lr_fix",
    "nadamw": "nadamw",
}
MAX_TAU = 4.0
TAU_POINTS = 100
RESAMPLES = 10000
SEED = 2026


def fail(message):
    sys.exit(f"algoperf_2026_comparison.py: {message}")


def run_score(pacer, inputs, out, time_axis, extra):
    command = [pacer, "score", *inputs, "--self-tuning", "--rules", "v0.6", "--time", time_axis,
               "--bootstrap", "0", "--out", out, *extra]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"{' '.join(command)} failed:\n{done.stderr[-2000:]}")


def read_times(folder):
    """{submission: {workload: [study times]}} and {submission: score} from pacer score's outputs."""
    times = {}
    try:
        with open(os.path.join(folder, "time_to_targets.csv")) as f:
            for row in csv.DictReader(f):
                study = [float(t) for t in row["study_times"].split(";")] if row["study_times"] else []
                times.setdefault(row["submission"], {})[row["workload"]] = study
        with open(os.path.join(folder, "scores.json")) as f:
            subs = json.load(f)["submissions"]
    except (OSError, ValueError, KeyError) as e:
        fail(f"cannot read pacer score's outputs in {folder}: {e}")
    scores = {s["name"]: s["score"] for s in subs} if isinstance(subs, list) else {
        k: (v["score"] if isinstance(v, dict) else v) for k, v in subs.items()}
    return times, scores


def median(values):
    v = sorted(values)
    n = len(v)
    if n == 0:
        return math.inf
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def profile_scores(cell):
    """AlgoPerf's benchmark score (v0.6: no held-out variants) from {sub: {workload: time}}."""
    subs = sorted(cell)
    workloads = sorted({w for s in subs for w in cell[s]})
    best = {w: min(cell[s].get(w, math.inf) for s in subs) for w in workloads}
    ratio = {}
    for s in subs:
        for w in workloads:
            t = cell[s].get(w, math.inf)
            if math.isinf(t) or t > MAX_TAU * best[w]:
                ratio[s, w] = math.inf
            else:
                ratio[s, w] = t / best[w] if best[w] > 0 else 1.0
    step = (MAX_TAU - 1.0) / (TAU_POINTS - 1)
    tau = [1.0 + k * step for k in range(TAU_POINTS)]
    tau[-1] = MAX_TAU
    out = {}
    for s in subs:
        rho = [sum(1 for w in workloads if ratio[s, w] <= t) / len(workloads) for t in tau]
        area = sum((tau[k] - tau[k - 1]) * (rho[k] + rho[k - 1]) / 2 for k in range(1, len(tau)))
        out[s] = area / (tau[-1] - tau[0])
    return out


def resampled_scores(times, rng):
    """One bootstrap draw: per submission, its studies drawn with replacement (one draw for all of
    its workloads, as a study is one run over the suite), the median over the drawn studies."""
    cell = {}
    for s, by_workload in times.items():
        n = max((len(v) for v in by_workload.values()), default=0)
        draw = [rng.randrange(n) for _ in range(n)] if n else []
        cell[s] = {}
        for w, study in by_workload.items():
            picked = [study[i] for i in draw if i < len(study)]
            cell[s][w] = median(picked)
    return profile_scores(cell)


def point_scores(times):
    return profile_scores({s: {w: median(v) for w, v in bw.items()} for s, bw in times.items()})


def percentile(values, q):
    v = sorted(x for x in values if not math.isnan(x))
    if not v:
        return math.nan
    k = (len(v) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def ranks(scores):
    order = sorted(scores, key=lambda k: -scores[k])
    out, i = {}, 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in order[i:j + 1]:
            out[k] = (i + j) / 2 + 1
        i = j + 1
    return out


def check_against_published(algoperf_scores, published_csv, column):
    with open(published_csv) as f:
        published = {r["submission"]: float(r[column]) for r in csv.DictReader(f)}
    worst = max(abs(algoperf_scores[k] - published[k]) for k in algoperf_scores if k in published)
    return worst, len([k for k in algoperf_scores if k in published])


def side(pacer, inputs, time_axis, extra, tmp, label):
    out = os.path.join(tmp, f"{label}_{time_axis}")
    run_score(pacer, inputs, out, time_axis, extra)
    times, scores = read_times(out)
    mine = point_scores(times)
    for k, v in scores.items():  # this script's scorer must be pacer score's, or nothing below holds
        if abs(mine.get(k, math.nan) - v) > 1e-9:
            fail(f"{label} {time_axis}: this script scores {k} {mine.get(k)}, pacer score {v}")
    return times, scores


def compare(pacer_times, algoperf_times, resamples, seed):
    names = sorted(PAIRS)
    rename = {v: k for k, v in PAIRS.items()}
    a_times = {rename[k]: v for k, v in algoperf_times.items()}
    p_point, a_point = point_scores(pacer_times), point_scores(a_times)
    rng = random.Random(seed)
    taus, rhos = [], []
    for _ in range(resamples):
        p, a = resampled_scores(pacer_times, rng), resampled_scores(a_times, rng)
        taus.append(kendall_tau_b({k: p[k] for k in names}, {k: a[k] for k in names}))
        rhos.append(spearman({k: p[k] for k in names}, {k: a[k] for k in names}))
    return {
        "entries": names,
        "pacer_scores": p_point, "algoperf_scores": a_point,
        "pacer_ranks": ranks(p_point), "algoperf_ranks": ranks(a_point),
        "kendall_tau_b": kendall_tau_b(p_point, a_point), "spearman": spearman(p_point, a_point),
        "kendall_tau_b_95": [percentile(taus, 0.025), percentile(taus, 0.975)],
        "spearman_95": [percentile(rhos, 0.025), percentile(rhos, 0.975)],
        "kendall_tau_b_above_0": sum(1 for t in taus if t > 0) / len(taus),
        "resamples": resamples, "seed": seed,
    }


def algoperf_self_agreement(algoperf_times, resamples, seed):
    """AlgoPerf against itself: study k's ranking against the other studies' (leave one out), over
    the same seven, the scale the comparison is read on."""
    names = sorted(algoperf_times)
    n = 3
    out = []
    for k in range(n):
        one = {s: {w: [v[k]] if k < len(v) else [] for w, v in bw.items()} for s, bw in algoperf_times.items()}
        rest = {s: {w: [x for i, x in enumerate(v) if i != k] for w, v in bw.items()}
                for s, bw in algoperf_times.items()}
        a, b = point_scores(one), point_scores(rest)
        out.append({"study": k, "kendall_tau_b": kendall_tau_b({s: a[s] for s in names}, {s: b[s] for s in names})})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pacer", default="build/pacer")
    ap.add_argument("--algoperf-logs", required=True)
    ap.add_argument("--published", help="analysis/data/leaderboard.csv of the same branch, to check the scorer")
    ap.add_argument("--store")
    ap.add_argument("--out")
    ap.add_argument("--resamples", type=int, default=RESAMPLES)
    ap.add_argument("--check-algoperf-only", action="store_true")
    args = ap.parse_args()
    folders = [os.path.join(args.algoperf_logs, v) for v in PAIRS.values()]
    for f in folders:
        if not os.path.isdir(f):
            fail(f"no AlgoPerf log folder {f}")
    result = {"pairs": PAIRS, "rules": "v0.6 self-tuning, tau_max 4, medians over 3 studies"}
    with tempfile.TemporaryDirectory() as tmp:
        if args.published:
            everything = sorted(os.path.join(args.algoperf_logs, d) for d in os.listdir(args.algoperf_logs))
            for axis, column in (("seconds", "score_by_wallclock"), ("steps", "score_by_steps")):
                _, scores = side(args.pacer, everything, axis, [], tmp, f"published_{axis}")
                worst, n = check_against_published(scores, args.published, column)
                result[f"published_check_{axis}"] = {"submissions": n, "largest_difference": worst}
                print(f"pacer score against the published leaderboard ({axis}): {n} submissions, "
                      f"largest difference {worst:.2e}")
        for axis in ("seconds", "steps"):
            a_times, _ = side(args.pacer, folders, axis, [], tmp, "algoperf")
            result[f"algoperf_self_agreement_{axis}"] = algoperf_self_agreement(a_times, args.resamples, SEED)
            if args.check_algoperf_only:
                result[f"algoperf_scores_{axis}"] = point_scores(a_times)
                continue
            if not args.store:
                fail("--store is required unless --check-algoperf-only")
            p_times, _ = side(args.pacer, [args.store], axis, ["--board-part", "self"], tmp, "pacer")
            # A Python submission's runs are named after its folder with ".py" (lion.py): the entry
            # is the folder's name (PAIRS), as the pre-registration names it.
            p_times = {k[:-3] if k.endswith(".py") else k: v for k, v in p_times.items()}
            missing = sorted(set(PAIRS) - set(p_times))
            if missing:
                fail(f"the store has no self-tuning runs of {', '.join(missing)}")
            p_times = {k: p_times[k] for k in PAIRS}
            result[axis] = compare(p_times, a_times, args.resamples, SEED)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "comparison.json"), "w") as f:
            json.dump(result, f, indent=2, sort_keys=True, default=str)
    for axis in ("seconds", "steps"):
        if axis not in result:
            print(f"AlgoPerf ({axis}) over the seven:",
                  ", ".join(f"{k} {v:.4f}" for k, v in sorted(result[f'algoperf_scores_{axis}'].items(),
                                                             key=lambda kv: -kv[1])))
            print(f"AlgoPerf against itself ({axis}), study k vs the other two, tau-b:",
                  ", ".join(f"{r['kendall_tau_b']:.3f}" for r in result[f'algoperf_self_agreement_{axis}']))
            continue
        r = result[axis]
        print(f"\n### By {axis}\n\n| entry | Pacer score | Pacer rank | AlgoPerf score | AlgoPerf rank |")
        print("| --- | --- | --- | --- | --- |")
        for k in sorted(r["entries"], key=lambda k: r["pacer_ranks"][k]):
            print(f"| {k} | {r['pacer_scores'][k]:.4f} | {r['pacer_ranks'][k]:g} | "
                  f"{r['algoperf_scores'][k]:.4f} | {r['algoperf_ranks'][k]:g} |")
        lo, hi = r["kendall_tau_b_95"]
        print(f"\nKendall's tau-b {r['kendall_tau_b']:.3f} (95% {lo:.3f} to {hi:.3f}; above 0 in "
              f"{100 * r['kendall_tau_b_above_0']:.1f}% of {r['resamples']} resamples); Spearman {r['spearman']:.3f}")


if __name__ == "__main__":
    main()
