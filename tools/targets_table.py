#!/usr/bin/env python3
"""Prints the markdown section of docs/targets.md for one docs/targets/<workload>.json."""
import json
import sys

d = json.load(open(sys.argv[1]))
print(f"### {d['workload']}\n")
print(f"Runs of {d['steps_per_run']} steps (0.75 x step hint {d['step_hint']}), evals every {d['eval_every']} steps.\n")
print("| algorithm | learning rate | best validation |\n| --- | --- | --- |")
for s in d["sweep"]:
    print(f"| {s['algorithm']} | {s['learning_rate']:g} | {s['best_validation']:.4f} |")
b = d["best_point"]
print(f"\nBest point: **{b['algorithm']}, learning_rate {b['learning_rate']:g}**. Reruns (seeds 1..{len(d['reruns_best_validation'])}), "
      f"best validation: {', '.join(f'{v:.4f}' for v in d['reruns_best_validation'])}.\n")
print(f"- validation target = median = **{d['validation_target']}**; test target = worst best-test value among the "
      f"{d['reruns_reaching_target']} reruns reaching it = **{d['test_target']}**")
print(f"- median steps to the validation target: {d['median_steps_to_target']:g}")
u = d["untuned"]
reached = "reached it" if u["reached_at"] else "did not reach it"
print(f"- untuned check: {u['algorithm']} with learning_rate {u['learning_rate']:g} for the full {u['steps']} steps "
      f"{reached} (best validation {u['best_validation']:.4f})\n")
