#!/usr/bin/python3
"""Step time of the board's workloads across LibTorch versions, interleaved in one run: Pacer
built on each LibTorch given (`--pacer LABEL=PATH`, e.g. pip's 2.15 and Debian's 1.13) against
PyTorch's own idiomatic loops (`--peer LABEL=PYTHON[:compile]`): bench/speed/workload_peers.py, eager
with AdamW(foreach=True), and the same under torch.compile (the inductor CPU backend).

  bench/speed/torch_versions.py --pacer 2.15=build-torch2.15.0/pacer --pacer 1.13=build/pacer \\
      --peer eager=.venv/torch-2.15.0/bin/python --peer compile=.venv/torch-2.15.0/bin/python:compile \\
      --steps 200 --rounds 3 --out docs/results/torch_versions

Each round runs every program once per workload, in an order that rotates from round to round
(no program always first). Times are CPU seconds per step at one intra-op thread (`--threads`):
`pacer run --clock cpu` (accumulated submission time, the cold first step left out; NAdamW, or
the algorithm after a ':' in --pacer, e.g. `--pacer 2.15-adamw=build-torch2.15.0/pacer:adamw`, the
peers' own optimizer) and the
peers' process time over their timed steps after untimed warm-up steps (torch.compile compiles
in the warm-up). CPU time, not wall time, so that another process on the machine (a board)
changes the comparison less; a quiet machine is still better (say what ran beside it).
FLOP/s: bench/speed/workload_peers.py's analytic matmul FLOPs per step, against the fp32 matmul peak
bench/speed/matmul_peak.py measures with each peer's Python. Writes OUT/torch_versions_t<T>.json
and .md (medians per program, ratios to the faster 2.15 peer).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BOARD_WORKLOADS = ["fmnist_mlp", "fmnist_resnet", "fmnist_recon", "fortunes_lm"]


def pair(text, what):
    label, sep, value = text.partition("=")
    if not sep or not label or not value:
        raise SystemExit(f"{what} '{text}': give LABEL=VALUE")
    return label, value


def run_pacer(path, workload, batch, args, tmp):
    path, _, algorithm = path.partition(":")
    out = os.path.join(tmp, f"pacer_{abs(hash((path, workload, time.time())))}")
    subprocess.run([path, "run", "-w", workload, "-a", algorithm or "nadamw", "--seed", "1", "--max-steps", str(args.steps),
                    "--eval-every", str(args.steps), "--ignore-targets", "--batch-size", str(batch),
                    "--threads", str(args.threads), "--clock", "cpu", "-q", "--out", out],
                   check=True, stdout=subprocess.DEVNULL)
    trial = json.load(open(os.path.join(out, "trial.json")))
    first = None
    with open(os.path.join(out, "eval_measurements.csv")) as f:
        header = f.readline().strip().split(",")
        for line in f:
            row = dict(zip(header, line.strip().split(",")))
            if int(float(row["global_step"])) == 1:
                first = float(row["accumulated_submission_time"])
    steps, total = trial["steps"], trial["accumulated_submission_time"]
    per_step = (total - first) / (steps - 1) if first is not None and steps > 1 else total / steps
    return {"seconds_per_step": per_step, "steps": steps, "first_step_seconds": first}


def run_peer(python, compiled, workload, batch, args):
    command = [python, os.path.join(HERE, "workload_peers.py"), "--workload", workload, "--steps", str(args.steps),
               "--warmup", str(args.warmup), "--threads", str(args.threads), "--batch-size", str(batch)]
    if compiled:
        command.append("--compile")
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    return {"seconds_per_step": r["cpu_seconds_per_step"], "wall_seconds_per_step": r["seconds_per_step"],
            "torch": r["torch"], "steps": r["steps"]}


def describe(python, args):
    out = subprocess.run([python, os.path.join(HERE, "workload_peers.py"), "--describe"], check=True,
                         capture_output=True, text=True).stdout
    return {r["workload"]: r for r in map(json.loads, out.strip().splitlines())}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pacer", action="append", default=[],
                        help="LABEL=PATH of a pacer executable, or LABEL=PATH:ALGORITHM (default nadamw; adamw is "
                             "the peers' optimizer)")
    parser.add_argument("--peer", action="append", default=[], help="LABEL=PYTHON or LABEL=PYTHON:compile")
    parser.add_argument("--workloads", default=",".join(BOARD_WORKLOADS))
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=20, help="the peers' untimed steps (torch.compile's compile)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", default="runs/bench")
    args = parser.parse_args()
    pacers = [pair(p, "--pacer") for p in args.pacer]
    peers = []
    for p in args.peer:
        label, value = pair(p, "--peer")
        python, _, mode = value.partition(":")
        if mode not in ("", "compile"):
            raise SystemExit(f"--peer '{p}': the mode after ':' is 'compile' or nothing")
        peers.append((label, python, mode == "compile"))
    if not pacers or not peers:
        raise SystemExit("give at least one --pacer and one --peer")
    for label, path in pacers:
        if not os.access(path.partition(":")[0], os.X_OK):
            raise SystemExit(f"--pacer {label}={path}: not an executable (build it first)")
    workloads = args.workloads.split(",")
    os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)  # OpenBLAS's own pool, for every program
    info = describe(peers[0][1], args)
    pythons = sorted({python for _, python, _ in peers})
    peaks = {}
    for python in pythons:
        out = subprocess.run([python, os.path.join(HERE, "matmul_peak.py"), "--threads", str(args.threads)],
                             check=True, capture_output=True, text=True).stdout
        peaks[python] = json.loads(out)
    programs = [("pacer", label, path, False) for label, path in pacers] + \
               [("peer", label, python, compiled) for label, python, compiled in peers]
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for w in workloads:
            batch = info[w]["batch_size"]
            for r in range(args.rounds):
                order = programs[r % len(programs):] + programs[:r % len(programs)]
                for kind, label, path, compiled in order:
                    print(f"{w} round {r + 1}/{args.rounds}: {label}", file=sys.stderr, flush=True)
                    rec = run_pacer(path, w, batch, args, tmp) if kind == "pacer" else \
                        run_peer(path, compiled, w, batch, args)
                    rec.update({"workload": w, "program": label, "kind": kind, "round": r + 1})
                    runs.append(rec)
    peak = max(p["gflops"] for p in peaks.values())
    results = {}
    for w in workloads:
        med = {label: statistics.median(x["seconds_per_step"] for x in runs if x["workload"] == w and x["program"] == label)
               for _, label, _, _ in programs}
        fastest_peer = min((label for label, _, _ in peers), key=lambda label: med[label])
        results[w] = {
            "batch_size": info[w]["batch_size"], "flops_per_step": info[w]["flops_per_step"],
            "median_cpu_seconds_per_step": med, "faster_peer": fastest_peer,
            "ratio_to_faster_peer": {label: med[label] / med[fastest_peer] for label in med},
            "gflops": {label: info[w]["flops_per_step"] / med[label] / 1e9 for label in med},
            "percent_of_matmul_peak": {label: 100 * info[w]["flops_per_step"] / med[label] / (peak * 1e9) for label in med},
        }
    summary = {
        "benchmark": "board workloads' step time across LibTorch versions (bench/speed/torch_versions.py)",
        "date": time.strftime("%Y-%m-%d %H:%M:%S"), "load_average_at_end": os.getloadavg(),
        "steps": args.steps, "peer_warmup_steps": args.warmup, "rounds": args.rounds, "threads": args.threads,
        "pacers": dict(pacers), "peers": {label: {"python": python, "compile": compiled} for label, python, compiled in peers},
        "matmul_peak": {python: peaks[python] for python in pythons}, "workloads": results, "runs": runs,
    }
    os.makedirs(args.out, exist_ok=True)
    base = os.path.join(args.out, f"torch_versions_t{args.threads}")
    json.dump(summary, open(base + ".json", "w"), indent=2)
    labels = [label for _, label, _, _ in programs]
    lines = [f"{args.steps} steps, {args.threads} thread(s), {args.rounds} interleaved rounds, CPU ms per step "
             f"(median); fp32 matmul peak {peak:.1f} GFLOP/s; load average at the end "
             f"{summary['load_average_at_end'][0]:.2f}", "",
             "| workload | batch | " + " | ".join(f"{label} ms" for label in labels) + " | " +
             " | ".join(f"{label} / faster peer" for label, _ in pacers) + " | " +
             " | ".join(f"{label} % peak" for label in labels) + " |",
             "|---|---|" + "---|" * (2 * len(labels) + len(pacers))]
    for w, r in results.items():
        m = r["median_cpu_seconds_per_step"]
        lines.append(f"| {w} | {r['batch_size']} | " + " | ".join(f"{1000 * m[label]:.2f}" for label in labels) + " | " +
                     " | ".join(f"{r['ratio_to_faster_peer'][label]:.3f} ({r['faster_peer']})" for label, _ in pacers) +
                     " | " + " | ".join(f"{r['percent_of_matmul_peak'][label]:.1f}" for label in labels) + " |")
    open(base + ".md", "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\nwrote {base}.json and {base}.md")


if __name__ == "__main__":
    main()
