#!/usr/bin/env python3
"""What one `pacer run` start costs in each program (issue 46's CI goal): a refused input error and a
Python submission's 5-step trial (the light pacer waits for its contained copy; the single program,
pacer-train, loads LibTorch to wait), each by the light `pacer` and by `pacer-train` of a built tree,
interleaved; prints the median CPU seconds (user + system of the process and its children).

    bench/process_start/run_start_cost.py CLONE TREE [REPS=5]
    e.g. bench/process_start/run_start_cost.py /tmp/fc build 5; bench/process_start/run_start_cost.py /tmp/fc build-asan 3
"""
import resource, subprocess, sys, os, statistics
clone, tree = sys.argv[1], sys.argv[2]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 5
env = dict(os.environ, PACER_IGNORE_LOAD="1")
if "asan" in tree:
    env.update(ASAN_OPTIONS="detect_leaks=1:detect_odr_violation=0:strict_string_checks=1",
               LSAN_OPTIONS=f"suppressions={clone}/scripts/sanitizers/lsan.supp:print_suppressions=0",
               UBSAN_OPTIONS=f"print_stacktrace=1:halt_on_error=1:suppressions={clone}/scripts/sanitizers/ubsan.supp")
cases = {"input error": ["run", "-w", "synthetic_regression", "-a", "sgd", "--budget", "nan"],
         "submission trial": ["run", "-w", "fmnist_mlp", "-a", f"{clone}/tests/data/python_submissions/sgd.py", "--set",
                              "learning_rate=0.05", "--max-steps", "5", "--eval-every", "5", "--threads", "1", "-q"]}
res = {}
for rep in range(reps):
    for name, args in cases.items():
        for prog in ("pacer", "pacer-train"):
            u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            r = subprocess.run([f"{clone}/{tree}/{prog}"] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            res.setdefault((name, prog), []).append(u1.ru_utime - u0.ru_utime + u1.ru_stime - u0.ru_stime)
            res.setdefault((name, prog, "rc"), set()).add(r.returncode)
for name in cases:
    a, b = res[(name, "pacer")], res[(name, "pacer-train")]
    print(f"{tree} | {name} | light {statistics.median(a):.2f} | single {statistics.median(b):.2f} | saved {statistics.median(b)-statistics.median(a):.2f} | rc {res[(name,'pacer','rc')]} {res[(name,'pacer-train','rc')]}")
