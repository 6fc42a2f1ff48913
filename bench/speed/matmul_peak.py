#!/usr/bin/python3
"""This machine's fp32 matmul peak as PyTorch reaches it: torch.mm on square matrices (1024 to
4096 by default) at the given intra-op thread count; the best rate over sizes and repetitions
(the peak the workloads' FLOP/s in bench/speed/workload_step_time.sh are set against).

  /usr/bin/python3 bench/speed/matmul_peak.py --threads 1
  {"threads": 1, "gflops": 61.2, "best_size": 2048, "per_size_gflops": {"1024": 58.1, ...}}

A multiply of n x n matrices counts 2 n^3 FLOPs. Each size is warmed up once, then timed --reps
times (each rep long enough to measure: repeated until --min-seconds); the best rep counts, as
background load only ever slows a rep down.
"""
import argparse
import json
import time

import torch


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--sizes", default="1024,2048,3072,4096", help="comma-separated square sizes")
    parser.add_argument("--reps", type=int, default=5, help="timed repetitions per size (best counts)")
    parser.add_argument("--min-seconds", type=float, default=0.2, help="minimum duration of one rep")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    per_size = {}
    for n in (int(s) for s in args.sizes.split(",")):
        a, b = torch.randn(n, n), torch.randn(n, n)
        c = torch.empty(n, n)
        torch.mm(a, b, out=c)  # warm-up
        # Multiplies per rep: enough for min_seconds, judged from one timed multiply.
        start = time.perf_counter()
        torch.mm(a, b, out=c)
        per_mm = time.perf_counter() - start
        inner = max(1, int(args.min_seconds / max(per_mm, 1e-9)))
        best = float("inf")
        for _ in range(args.reps):
            start = time.perf_counter()
            for _ in range(inner):
                torch.mm(a, b, out=c)
            best = min(best, (time.perf_counter() - start) / inner)
        per_size[str(n)] = round(2.0 * n ** 3 / best / 1e9, 3)
    best_size = max(per_size, key=per_size.get)
    print(json.dumps({"threads": torch.get_num_threads(), "gflops": per_size[best_size], "best_size": int(best_size),
                      "per_size_gflops": per_size, "reps": args.reps, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
