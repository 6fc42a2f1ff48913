#!/usr/bin/env python3
"""Prints the markdown section of docs/targets.md for one docs/targets/<workload>.json.

Usage: tools/targets_table.py docs/targets/fmnist_resnet.json
"""
import json
import sys


def short(hparams):
    keys = ["learning_rate", "one_minus_beta1", "weight_decay", "warmup_factor", "label_smoothing", "dropout_rate"]
    return ", ".join(f"{k} {hparams[k]:.3g}" for k in keys if k in hparams)


def value(v):
    return "-" if v is None else f"{v:.4f}"


def pacer_targets(d):
    print(f"### {d['workload']}\n")
    print(f"`pacer targets`: {len(d['algorithms'])} algorithms x {d['trials_per_algorithm']} Halton points, runs of "
          f"{d['steps_per_run']} steps (0.75 x step hint {d['step_hint']}), evals every {d['eval_every']} steps; "
          f"metric {d['metric']} ({'max' if d['higher_is_better'] else 'min'}).\n")
    print("| algorithm | point | status | best validation (step) |\n| --- | --- | --- | --- |")
    for r in d["search"]:
        print(f"| {r['algorithm']} | {short(r['hparams'])} | {r['status']} | {value(r['best_validation'])} ({r['best_step']}) |")
    b = d["best_point"]
    reruns = ", ".join(value(r["best_validation"]) for r in d["reruns"])
    print(f"\nBest point: **{b['algorithm']}** ({short(b['hparams'])}). Re-runs ({len(d['reruns'])} seeds), "
          f"best validation: {reruns}.\n")
    print(f"- validation target = median = **{d['validation_target']:.4f}**; test target = **{value(d['test_target'])}**")
    if "budget_basis" in d:
        b = d["budget_basis"]
        print(f"- budget {d['budget_factor']:g} x median steps to target {b['median_steps_to_target']:g} x "
              f"{b['seconds_per_step_alone'] * 1e3:.1f} ms per step measured alone = **{d['budget_s']:g} s** "
              f"({'`tools/rebudget.py`' if 'rebudget' in b['rule'] else 'timed by `pacer targets`'}; "
              f"{d['budget_under_load_s']:g} s from the re-runs' times, "
              f"median {d['median_time_to_target_s']:.1f} s)\n")
    else:
        print(f"- median time to the validation target {d['median_time_to_target_s']:.1f} s -> budget "
              f"{d['budget_factor']:g} x = **{d['budget_s']:g} s**\n")


d = json.load(open(sys.argv[1]))
pacer_targets(d)
