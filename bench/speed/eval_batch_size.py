#!/usr/bin/python3
"""Eval (forward, no grad) time per example vs batch size for the new workloads' models.

Uses the PyTorch mirrors of Pacer's models (bench/speed/workload_peers.py): the same ATen CPU kernels
LibTorch runs, so the batch size that is fastest here is the one Pacer's evals use (see
src/workloads/registry.cpp and the workloads' kEvalBatchSize). Random inputs; best of --reps.

Usage: /usr/bin/python3 bench/speed/eval_batch_size.py [--threads 1] [--examples 2000] [--reps 3]
Prints one JSON line per (model, batch size): {"model", "batch_size", "ms_per_example"}.
"""
import argparse
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import workload_peers as wp  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--examples", type=int, default=2000)
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    n = a.examples
    models = [
        ("resnet", wp.ResNet(), torch.rand(n, 1, 28, 28), [32, 64, 128, 250, 500]),
        ("vit", wp.VisionTransformer(), torch.rand(n, 1, 28, 28), [32, 64, 128, 250, 500]),
        ("unet", wp.UNet(), torch.rand(n, 1, 28, 28), [32, 64, 128, 250]),
        ("char_transformer", wp.CharTransformer(), torch.randint(0, 256, (n // 2, 64)), [16, 32, 64, 128, 250]),
    ]
    for name, model, x, sizes in models:
        model.eval()
        with torch.no_grad():
            for bs in sizes:
                best = float("inf")
                for _ in range(a.reps):
                    t = time.perf_counter()
                    for i in range(0, x.shape[0], bs):
                        model(x[i:i + bs])
                    best = min(best, time.perf_counter() - t)
                print(json.dumps({"model": name, "batch_size": bs, "threads": a.threads,
                                  "ms_per_example": round(best / x.shape[0] * 1e3, 4)}), flush=True)


if __name__ == "__main__":
    main()
