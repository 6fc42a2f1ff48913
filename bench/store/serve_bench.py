#!/usr/bin/python3
"""`pacer serve` benchmarks (docs/benchmarks.md, "pacer serve"); each prints and writes JSON.

  page-time STORE   A page of STORE as a browser loads it (the HTML, its script and style sheet,
                    /api/overview, /api/leaderboard, /api/profiles.svg): the first load (the
                    server computes everything), then PAGES loads of an unchanged store (cached),
                    then PAGES loads of a copy that changes before each load (a claim: progress and
                    tables are recomputed, the leaderboard waits for --score-every). Median and
                    percentiles per kind. Goal: median at most 100 ms on the committed board.
  load              8 clients (CLIENTS) for 30 s (SECONDS_: bash owns SECONDS), each at most 2,000 requests with 20 ms
                    between them (THINK_MS), over every route of a store that two `pacer tune`
                    workers are writing: failures and latency percentiles. Goal: no failed request.
  overhead          The board's cost of being watched: `pacer tune` with two workers (cpu clock)
                    alone and beside `pacer serve` with a client polling the index page every
                    second (POLL_SEC; 5x a page's default), interleaved REPEATS times (order alternating); trials per minute,
                    CPU seconds of the trials, and the server's own CPU time over the run's
                    CPU capacity. Goal: under 2% of the trial throughput.

  bench/store/serve_bench.py page-time docs/results/leaderboard/board.db [--pacer build/pacer] [--out FILE]
  bench/store/serve_bench.py load [--out FILE]
  bench/store/serve_bench.py overhead [--out FILE]
"""
import argparse
import http.client
import json
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

PAGE = ["/", "/assets/dashboard.js", "/assets/dashboard.css", "/api/overview",
        "/api/leaderboard?part={part}&time=seconds", "/api/profiles.svg?part={part}&time=seconds"]


def percentiles(values):
    if not values:
        return {}
    s = sorted(values)
    pick = lambda q: s[min(len(s) - 1, int(round(q * (len(s) - 1))))]
    return {"n": len(s), "median_ms": 1e3 * statistics.median(s), "p90_ms": 1e3 * pick(0.9),
            "p99_ms": 1e3 * pick(0.99), "max_ms": 1e3 * s[-1], "min_ms": 1e3 * s[0]}


class Server:
    """`pacer serve STORE --port 0 ARGS` in the background; its port from the URL it prints."""

    def __init__(self, pacer, store, *args):
        self.out = tempfile.NamedTemporaryFile("w+", suffix=".serve.txt", delete=False)
        self.proc = subprocess.Popen([pacer, "serve", store, "--port", "0", *args], stdout=self.out,
                                     stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", open(self.out.name).read())
            if m:
                self.port = int(m[1])
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        raise SystemExit("serve_bench: pacer serve did not start: " + open(self.out.name).read())

    def cpu_seconds(self):
        fields = open(f"/proc/{self.proc.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.proc.send_signal(2)
        self.proc.wait(timeout=30)
        os.unlink(self.out.name)


def get(conn, path):
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{conn.port}"})
    r = conn.getresponse()
    body = r.read()
    return r.status, body


def load_page(port, part):
    """The page's requests on one keep-alive connection, as a browser's first connection does."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    start = time.perf_counter()
    for path in PAGE:
        status, _ = get(conn, path.format(part=urllib.parse.quote(part)))
        if status != 200:
            raise SystemExit(f"serve_bench: {path} answered {status}")
    conn.close()
    return time.perf_counter() - start


def page_time(args):
    result = {"store": args.store, "pages": args.pages}
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "board.db")
        shutil.copy(args.store, copy)
        server = Server(args.pacer, copy, "--score-every", "30")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
            part = json.loads(get(conn, "/api/overview")[1])["parts"][0]
            conn.close()
            # The first load after start-up scores the part (the overview above was computed).
            result["first_load"] = percentiles([load_page(server.port, part)])
            result["unchanged"] = percentiles([load_page(server.port, part) for _ in range(args.pages)])
            db = sqlite3.connect(copy)
            changing = []
            for i in range(args.pages):
                # What a running board does between two polls: a trial's attempt count changes.
                db.execute("UPDATE trials SET attempts = attempts + 1 WHERE id = 1")
                db.commit()
                time.sleep(1.1)  # past the server's one-second look at the store
                changing.append(load_page(server.port, part))
            db.close()
            result["changing"] = percentiles(changing)
        finally:
            server.stop()
    return result


def tune_command(pacer, store, trials, budget):
    return [pacer, "tune", "-w", "fmnist_mlp", "-a", "adam", "--space", "spaces/adam.json", "--studies", "1",
            "--trials", str(trials), "--workers", "2", "--clock", "cpu", "--budget", str(budget), "--no-race",
            "--ignore-targets", "-q", "--store", store]


def load(args):
    routes = ["/", "/api/overview", "/api/leaderboard?part=external&time=seconds",
              "/api/profiles.svg?part=external&time=seconds", "/api/study/1", "/api/trial/{trial}",
              "/api/trial/{trial}/curve.svg", "/study/1/analysis", "/assets/dashboard.js"]
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "tune.db")
        writers = subprocess.Popen(tune_command(args.pacer, store, 40, 3), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        while not os.path.exists(store):
            time.sleep(0.1)
        time.sleep(3)
        server = Server(args.pacer, store, "--score-every", "5")
        latencies, failures, lock = [], [], threading.Lock()
        count = lambda sql: sqlite3.connect(store).execute(sql).fetchone()[0]
        evals_before = count("select count(*) from evals")
        finished_sql = "select count(*) from trials where status in ('complete','diverged','failed')"
        finished_before = count(finished_sql)
        stop_at = time.time() + args.seconds

        def client(k):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
            for i in range(args.max_requests):
                if time.time() >= stop_at:
                    break
                path = routes[(i + k) % len(routes)].format(trial=1 + (i % 5))
                start = time.perf_counter()
                try:
                    status, _ = get(conn, path)
                    ok = status == 200
                except Exception as e:  # a refused or dropped connection is a failure
                    status, ok = repr(e), False
                    conn.close()
                    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
                with lock:
                    latencies.append(time.perf_counter() - start)
                    if not ok:
                        failures.append(f"{path}: {status}")
                time.sleep(args.think_ms / 1000.0)
            conn.close()

        threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
        begin = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.time() - begin
        server_cpu = server.cpu_seconds()
        server.stop()
        evals = count("select count(*) from evals") - evals_before
        done = count(finished_sql) - finished_before
        writers.terminate()
        writers.wait()
    return {"clients": args.clients, "seconds": round(elapsed, 1), "requests": len(latencies),
            "requests_per_sec": len(latencies) / elapsed, "failures": len(failures), "failed": failures[:10],
            "latency": percentiles(latencies), "think_ms": args.think_ms, "server_cpu_sec": server_cpu,
            "written_meanwhile": {"evals": evals, "trials_finished": done}}


def overhead(args):
    runs = []
    for rep in range(args.repeats):
        for watched in ((False, True) if rep % 2 == 0 else (True, False)):  # alternating order
            with tempfile.TemporaryDirectory() as tmp:
                store = os.path.join(tmp, "tune.db")
                begin = time.time()
                writers = subprocess.Popen(tune_command(args.pacer, store, args.trials, 4),
                                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                server, polls = None, 0
                client_cpu = resource.getrusage(resource.RUSAGE_SELF)
                if watched:
                    while not os.path.exists(store):
                        time.sleep(0.05)
                    time.sleep(0.5)
                    server = Server(args.pacer, store)
                    while writers.poll() is None:
                        load_page(server.port, "external")
                        polls += 1
                        time.sleep(args.poll_sec)
                writers.wait()
                elapsed = time.time() - begin
                now = resource.getrusage(resource.RUSAGE_SELF)
                client_cpu = now.ru_utime + now.ru_stime - client_cpu.ru_utime - client_cpu.ru_stime
                server_cpu = server.cpu_seconds() if server else 0.0
                if server:
                    server.stop()
                db = sqlite3.connect(store)
                n, cpu = db.execute("select count(*), sum(submission_time) from trials where status in "
                                    "('complete','diverged','failed')").fetchone()
                db.close()
                runs.append({"repeat": rep + 1, "watched": watched, "trials": n, "wall_sec": elapsed,
                             "trials_per_min": 60.0 * n / elapsed, "trial_cpu_sec": cpu, "page_loads": polls,
                             "server_cpu_sec": server_cpu, "client_cpu_sec": client_cpu if watched else 0.0,
                             "server_cpu_share_of_two_cores": server_cpu / (2 * elapsed)})
                print(json.dumps(runs[-1]), flush=True)
    alone = [r for r in runs if not r["watched"]]
    watched = [r for r in runs if r["watched"]]
    mean = lambda rs, k: statistics.mean(r[k] for r in rs)
    return {"runs": runs,
            "throughput_ratio_watched_over_alone": mean(watched, "trials_per_min") / mean(alone, "trials_per_min"),
            "trial_cpu_ratio_watched_over_alone": mean(watched, "trial_cpu_sec") / mean(alone, "trial_cpu_sec"),
            "server_cpu_share_of_two_cores": mean(watched, "server_cpu_share_of_two_cores"),
            "client_cpu_share_of_two_cores": statistics.mean(r["client_cpu_sec"] / (2 * r["wall_sec"]) for r in watched),
            "poll_sec": args.poll_sec}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["page-time", "load", "overhead"])
    parser.add_argument("store", nargs="?", default="docs/results/leaderboard/board.db")
    parser.add_argument("--pacer", default="build/pacer")
    parser.add_argument("--out", default="")
    parser.add_argument("--pages", type=int, default=int(os.environ.get("PAGES", "30")))
    parser.add_argument("--clients", type=int, default=int(os.environ.get("CLIENTS", "8")))
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("SECONDS_", "30")))
    parser.add_argument("--max-requests", type=int, default=2000)
    parser.add_argument("--think-ms", type=float, default=float(os.environ.get("THINK_MS", "20")))
    parser.add_argument("--repeats", type=int, default=int(os.environ.get("REPEATS", "2")))
    parser.add_argument("--poll-sec", type=float, default=float(os.environ.get("POLL_SEC", "1")))
    parser.add_argument("--trials", type=int, default=int(os.environ.get("TRIALS", "16")))
    args = parser.parse_args()
    if not os.access(args.pacer, os.X_OK):
        sys.exit(f"serve_bench: {args.pacer} not found; build it first (cmake --build build --target pacer_cli)")
    result = {"page-time": page_time, "load": load, "overhead": overhead}[args.what](args)
    result["machine"] = {"cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d")}
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
        open(args.out, "w").write(text + "\n")


if __name__ == "__main__":
    main()
