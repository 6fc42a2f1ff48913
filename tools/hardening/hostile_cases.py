#!/usr/bin/env python3
"""Hostile cases of issues 32 and 48 (hardening, third and fourth rounds), run against a pacer executable.

    tools/hardening/hostile_cases.py build/pacer              # every case, a table and the counts
    tools/hardening/hostile_cases.py OLD/pacer --json out.json
    tools/hardening/hostile_cases.py build/pacer --skip-covered   # CTest's HostileCases: not the
                                       # cases a GoogleTest asserts too (covered_by), each named

Each case attacks one class of the issue (outputs that are not regular files, empty selectors,
--resume over results, concurrent writers, lying checkpoints, silently changed values, late or
unclear errors) in a temporary folder of its own and judges what the executable did:

    ok          handled as a careful user expects (a clear one-line error and exit 2, or the
                right result), nothing lost
    crash       killed by a signal, an uncaught exception, a stack trace
    data-loss   something recorded was lost, replaced or changed
    wrong       a silently wrong or ignored input (exit 0 where it should not be)
    unclear     refused, but late, with the wrong diagnosis, or not in one line

The same cases run against two executables give the before/after count of docs/errors.md.
Cases that need what this machine lacks (root for a device node) say "skipped".
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import zlib

QUICK = ["-w", "synthetic_regression", "-a", "sgd", "--max-steps", "40", "--eval-every", "20", "--threads", "1", "-q"]
CASES = []


def case(category, name, covered_by=None):
    """Registers a case; `covered_by` names the GoogleTest that asserts the same behaviour (CTest's
    run passes --skip-covered, so that the suite does not pay twice for the slow ones)."""
    def register(fn):
        CASES.append((category, name, fn, covered_by))
        return fn
    return register


class Ctx:
    def __init__(self, pacer, root):
        self.pacer_path, self.dir = pacer, root

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def run(self, *args, timeout=300, env=None):
        p = subprocess.run([self.pacer_path, *args], cwd=self.dir, capture_output=True, text=True, timeout=timeout,
                           env=env)
        return p.returncode, p.stdout, p.stderr

    def store(self, name="s.db", studies=2):
        """A small self-tuning store with `studies` finished studies."""
        rc, _, err = self.run("tune", "-w", "synthetic_regression", "-a", "sgd", "--ruleset", "self", "--studies",
                              str(studies), "--max-steps", "5", "--eval-every", "5", "--threads", "1", "-q",
                              "--store", self.path(name))
        assert rc == 0, err
        return self.path(name)


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def crashed(rc, err):
    return rc < 0 or rc >= 128 and rc != 130 or "terminate called" in err


def input_error(rc, err, needle=None, codes=(2,)):
    """Exit 2 (or one of `codes`) with one `pacer: error:` line (naming `needle`). The busy-machine
    warning is about the machine the case ran on (CTest runs cases beside other tests), not the
    input, and does not count as a second line."""
    lines = [l for l in err.splitlines() if l.strip() and not l.startswith("pacer: warning: the machine is busy")]
    return rc in codes and len(lines) == 1 and lines[0].startswith("pacer: error:") and (needle is None or needle in err)


def judge_refusal(rc, err, needle=None, harmed=False, codes=(2,)):
    if crashed(rc, err) and not harmed:
        return "crash", err.strip().splitlines()[0] if err.strip() else "rc %d" % rc
    if harmed:
        return "data-loss", "rc %d: %s" % (rc, err.strip()[:160])
    if rc == 0:
        return "wrong", "accepted (exit 0)"
    if not input_error(rc, err, needle, codes):
        return "unclear", "rc %d: %s" % (rc, err.strip()[:200])
    return "ok", err.strip()[:160]


# ---- data loss and overwrites -------------------------------------------------------------------

@case("outputs", "report --out a character device (own /dev/full node)")
def _(c):
    if os.geteuid() != 0:
        return "skipped", "needs root for mknod"
    dev = c.path("full")
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    store = c.store()
    rc, _, err = c.run("score", store, "--self-tuning", "-o", c.path("scores"))
    rc, _, err = c.run("report", c.path("scores"), "--out", dev)
    # The device's own answer is not bad input: exit 1 with its one-line reason.
    return judge_refusal(rc, err, "No space left", harmed=not stat.S_ISCHR(os.lstat(dev).st_mode), codes=(1, 2))


@case("outputs", "study export --out a FIFO")
def _(c):
    store = c.store()
    fifo = c.path("fifo")
    os.mkfifo(fifo)
    got = {}
    import threading
    t = threading.Thread(target=lambda: got.setdefault("text", read(fifo)), daemon=True)
    t.start()
    rc, _, err = c.run("study", "export", store, "--out", fifo, timeout=60)
    if not stat.S_ISFIFO(os.lstat(fifo).st_mode):
        return "data-loss", "the FIFO became a regular file"
    t.join(5)
    return ("ok", "written through") if rc == 0 and "experiment" in got.get("text", "") else ("wrong", "rc %d" % rc)


@case("outputs", "study export --out a symlink")
def _(c):
    store = c.store()
    open(c.path("real.csv"), "w").write("old")
    os.symlink("real.csv", c.path("link.csv"))
    rc, _, err = c.run("study", "export", store, "--out", c.path("link.csv"))
    if not os.path.islink(c.path("link.csv")):
        return "data-loss", "the symlink was replaced by a file"
    return ("ok", "target written") if "experiment" in read(c.path("real.csv")) else ("wrong", "target not written")


@case("outputs", "score --out a folder named as a file")
def _(c):
    store = c.store()
    os.mkdir(c.path("x.html"))
    rc, _, err = c.run("score", store, "--self-tuning", "-o", c.path("scores"))
    rc, _, err = c.run("report", c.path("scores"), "--out", c.path("x.html"))
    return judge_refusal(rc, err, "is a folder", harmed=not os.path.isdir(c.path("x.html")))


@case("selectors", "study delete STORE '' --yes")
def _(c):
    store = c.store()
    rc, _, err = c.run("study", "delete", store, "", "--yes")
    _, out, _ = c.run("study", "show", store, "--json")
    return judge_refusal(rc, err, "empty", harmed="study_1" not in out)


@case("selectors", "study copy STORE DEST ''")
def _(c):
    store = c.store()
    rc, _, err = c.run("study", "copy", store, c.path("d.db"), "")
    return judge_refusal(rc, err, "empty")


@case("resume", "--resume on a finished run without checkpoint, another algorithm and seed")
def _(c):
    out = c.path("r")
    c.run("run", *QUICK, "--out", out)
    before = read(os.path.join(out, "trial.json"))
    args = [a if a != "sgd" else "momentum" for a in QUICK]
    rc, _, err = c.run("run", *args, "--seed", "7", "--resume", "--out", out)
    return judge_refusal(rc, err, harmed=read(os.path.join(out, "trial.json")) != before)


@case("resume", "--resume on a finished checkpointed run")
def _(c):
    out = c.path("r")
    c.run("run", *QUICK, "--checkpoint-every", "20", "--out", out)
    before = read(os.path.join(out, "trial.json"))
    rc, _, err = c.run("run", *QUICK, "--checkpoint-every", "20", "--resume", "--out", out)
    return judge_refusal(rc, err, harmed=read(os.path.join(out, "trial.json")) != before)


@case("resume", "--resume where checkpoint is a file")
def _(c):
    out = c.path("r")
    c.run("run", *QUICK, "--out", out)
    before = read(os.path.join(out, "trial.json"))
    open(os.path.join(out, "checkpoint"), "w").write("x")
    rc, _, err = c.run("run", *QUICK, "--resume", "--out", out)
    return judge_refusal(rc, err, harmed=read(os.path.join(out, "trial.json")) != before)


@case("concurrency", "two pacer run --out SAME at once")
def _(c):
    out = c.path("r")
    first = subprocess.Popen([c.pacer_path, "run", "-w", "fmnist_mlp", "-a", "sgd", "--max-steps", "100000",
                              "--budget", "1000", "--ignore-targets", "--threads", "1", "-q", "--out", out],
                             cwd=c.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(out, "hparams.json")) and time.time() < deadline:
        time.sleep(0.05)
    rc, _, err = c.run("run", *QUICK, "--overwrite", "--out", out)
    first.send_signal(signal.SIGINT)
    first.wait(60)
    return judge_refusal(rc, err, harmed=rc == 0)


@case("concurrency", "two tune of different algorithms sharing --out")
def _(c):
    tune = ["tune", "-w", "synthetic_regression", "--ruleset", "self", "--max-steps", "5", "--eval-every", "5",
            "--threads", "1", "-q", "--out", c.path("logs")]
    c.run(*tune, "-a", "sgd", "--store", c.path("a.db"))
    trial = c.path("logs", "study_1", "synthetic_regression_libtorch", "trial_1", "trial.json")
    before = read(trial)
    rc, _, err = c.run(*tune, "-a", "momentum", "--store", c.path("b.db"))
    return judge_refusal(rc, err, harmed=read(trial) != before)


def checkpointed(c, algorithm="sgd"):
    """A checkpointed run at step 20 of 40 whose process 'died' (trial.json removed)."""
    out = c.path("r")
    args = [a if a != "sgd" else algorithm for a in QUICK]
    rc, _, err = c.run("run", *args, "--checkpoint-every", "20", "--out", out)
    assert rc == 0, err
    os.remove(os.path.join(out, "trial.json"))
    return out, args


def edit_state(out, change, keep_checksum):
    path = os.path.join(out, "checkpoint", "state.json")
    j = json.loads(read(path))
    recorded = j.pop("state_crc32", None)
    change(j)
    text = json.dumps(j, separators=(",", ":"))
    if recorded is not None:  # the recorded checksum kept, or recomputed as someone who knows the format could
        j["state_crc32"] = "%08x" % (zlib.crc32(text.encode()) & 0xffffffff) if keep_checksum else recorded
        text = json.dumps(j, separators=(",", ":"))
    open(path, "w").write(text)


@case("checkpoints", "tampered state.json: empty eval list")
def _(c):
    out, args = checkpointed(c)
    edit_state(out, lambda j: j.__setitem__("evals", []), keep_checksum=False)
    rc, _, err = c.run("run", *args, "--checkpoint-every", "20", "--resume", "--out", out)
    rows = read(os.path.join(out, "eval_measurements.csv")).strip().splitlines()
    return judge_refusal(rc, err, harmed=rc == 0 and len(rows) < 4)


@case("checkpoints", "24 bytes of the tensor file changed, same size")
def _(c):
    out, args = checkpointed(c)
    folder = os.path.join(out, "checkpoint")
    name = [f for f in os.listdir(folder) if f.startswith("tensors_")][0]
    data = bytearray(read(os.path.join(folder, name), "rb"))
    for i in range(24):
        data[len(data) // 2 + i] ^= 0x55
    open(os.path.join(folder, name), "wb").write(data)
    rc, _, err = c.run("run", *args, "--checkpoint-every", "20", "--resume", "--out", out)
    return judge_refusal(rc, err)


for option, label in [(["--set", "learning_rate=0.3"], "another learning rate"),
                      (["--set", "dropout_rate=0.2"], "another dropout"),
                      (["--self-tuning"], "--self-tuning"),
                      (["--budget", "9"], "another --budget"),
                      (["--eval-splits", "validation"], "other eval splits")]:
    def make(option=option):
        def check(c):
            out, args = checkpointed(c)
            hparams = read(os.path.join(out, "hparams.json"))
            rc, _, err = c.run("run", *args, *option, "--checkpoint-every", "20", "--resume", "--out", out)
            return judge_refusal(rc, err, harmed=read(os.path.join(out, "hparams.json")) != hparams)
        return check
    case("checkpoints", "--resume with " + label)(make())


@case("checkpoints", "--resume with another model option")
def _(c):
    out = c.path("r")
    base = ["-w", "fmnist_mlp", "-a", "sgd", "--max-steps", "40", "--eval-every", "20", "--threads", "1", "-q"]
    c.run("run", *base, "--checkpoint-every", "20", "--out", out)
    os.remove(os.path.join(out, "trial.json"))
    rc, _, err = c.run("run", *base, "--workload-option", "activation=tanh", "--checkpoint-every", "20", "--resume",
                       "--out", out)
    return judge_refusal(rc, err)


for change, label in [(lambda j: j.__setitem__("step", -5), "a negative step"),
                      (lambda j: j.__setitem__("accumulated_submission_time", -3.0), "a negative accumulated time"),
                      (lambda j: j.__setitem__("algorithm_state", j["algorithm_state"][:-1]),
                       "a shortened algorithm-state list")]:
    def make(change=change):
        def check(c):
            out, args = checkpointed(c, "momentum")
            edit_state(out, change, keep_checksum=True)
            rc, _, err = c.run("run", *args, "--checkpoint-every", "20", "--resume", "--out", out)
            return judge_refusal(rc, err)
        return check
    case("checkpoints", "state.json with " + label + " (checksum recomputed)")(make())


@case("checkpoints", "grad-norm metrics after a resume between evals")
def _(c):
    base = ["run", "-w", "synthetic_regression", "-a", "sgd", "--max-steps", "50", "--eval-every", "20", "--threads",
            "1", "-q", "--set", "learning_rate=0.05"]
    c.run(*base, "--out", c.path("ref"))
    out = c.path("cut")
    c.run(*base, "--checkpoint-every", "30", "--out", out)  # one checkpoint, at step 30
    os.remove(os.path.join(out, "trial.json"))
    rc, _, err = c.run(*base, "--checkpoint-every", "30", "--resume", "--out", out)
    if rc != 0:
        return judge_refusal(rc, err)

    def column(path, name):
        lines = read(path).strip().splitlines()
        i = lines[0].split(",").index(name)
        return [l.split(",")[i] for l in lines[1:]]
    for name in ("train/grad_norm_mean", "train/grad_norm_max"):
        a = column(c.path("ref", "eval_measurements.csv"), name)
        b = column(os.path.join(out, "eval_measurements.csv"), name)
        if a != b:
            return "wrong", "%s differs: %s vs %s" % (name, a, b)
    return "ok", "equal"


@case("checkpoints", "a damaged tensor file's error is one line")
def _(c):
    out, args = checkpointed(c)
    folder = os.path.join(out, "checkpoint")
    name = [f for f in os.listdir(folder) if f.startswith("tensors_")][0]
    open(os.path.join(folder, name), "wb").write(b"PK\x03\x04 not a zip")
    rc, _, err = c.run("run", *args, "--checkpoint-every", "20", "--resume", "--out", out)
    return judge_refusal(rc, err)


def mount_tmpfs(c, name, size):
    """A small file system of its own at c.path(name) (None where this machine cannot: not root)."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return None
    path = c.path(name)
    os.mkdir(path)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", path], capture_output=True).returncode:
        return None
    return path


@case("checkpoints", "a full disk with checkpoints on")
def _(c):
    disk = mount_tmpfs(c, "disk", "300k")
    if disk is None:
        return "skipped", "needs root to mount a small file system"
    try:
        rc, out, err = c.run("run", "-w", "fmnist_mlp", "-a", "nadamw", "--max-steps", "40", "--eval-every", "20",
                             "--threads", "1", "-q", "--checkpoint-every", "10", "--out", os.path.join(disk, "r"))
        wrote = os.path.exists(os.path.join(disk, "r", "trial.json"))
    finally:
        subprocess.run(["umount", disk])
    if crashed(rc, err):
        return "crash", err.strip().splitlines()[0] if err.strip() else "rc %d" % rc
    if "frame #" in err:
        return "unclear", "a stack trace"
    return ("ok", "failed cleanly: " + out.split("message:")[-1].strip()[:100]) if wrote else ("data-loss", "no trial.json")


@case("checkpoints", "a killed writer's temporary files are cleaned up on resume")
def _(c):
    out, args = checkpointed(c)
    p = subprocess.Popen(["true"])
    p.wait()
    leftover = os.path.join(out, "checkpoint", "state.json.tmp%d" % p.pid)
    open(leftover, "w").write("half")
    rc, _, err = c.run("run", *args, "--checkpoint-every", "20", "--resume", "--out", out)
    if rc != 0:
        return judge_refusal(rc, err)
    return ("wrong", "left behind") if os.path.exists(leftover) else ("ok", "removed")


# ---- silently wrong or ignored input ------------------------------------------------------------

@case("values", "--seed 2^64")
def _(c):
    rc, _, err = c.run("run", *QUICK, "--seed", str(2 ** 64))
    return judge_refusal(rc, err, "--seed")


@case("values", "duplicate keys in --hparams")
def _(c):
    open(c.path("h.json"), "w").write('{"learning_rate": 0.1, "learning_rate": 0.2}')
    rc, _, err = c.run("run", *QUICK, "--hparams", c.path("h.json"))
    if crashed(rc, err):
        return "crash", err[:160]
    return ("ok", err.strip()[:160]) if "twice" in err or rc == 2 else ("wrong", "taken silently")


@case("values", "targets file: a workload a variant of itself")
def _(c):
    store = c.store()
    targets = {"synthetic_regression": {"metric": "loss", "direction": "min", "validation_target": 0.3,
                                        "budget": 1, "base_workload": "synthetic_regression"}}
    open(c.path("t.json"), "w").write(json.dumps(targets))
    rc, out, err = c.run("score", store, "--self-tuning", "--targets", c.path("t.json"))
    if rc == 0 and "(0)" in out:
        return "wrong", "the workload is silently unscored"
    return judge_refusal(rc, err) if rc != 0 else ("ok", "scored")


@case("values", "scale -a sgd,sgd")
def _(c):
    space = os.path.join(REPO, "spaces", "sgd.json")
    rc, _, err = c.run("scale", "-w", "synthetic_regression", "-a", "sgd,sgd", "--space", space, "--space", space,
                       "--batch-sizes", "16,32", "--max-steps", "20", "--store", c.path("s.db"), "-q")
    return judge_refusal(rc, err)


@case("values", "scale --goal 2.0 for an accuracy metric")
def _(c):
    rc, _, err = c.run("scale", "-w", "fmnist_mlp", "-a", "sgd", "--space", os.path.join(REPO, "spaces", "sgd.json"),
                       "--batch-sizes", "16,32", "--max-steps", "20", "--goal", "2.0", "--store", c.path("s.db"), "-q")
    return judge_refusal(rc, err)


@case("values", "probe --memory-limit beyond 2^64 bytes")
def _(c):
    rc, _, err = c.run("probe", "-w", "synthetic_regression", "-a", "sgd", "--memory-limit", "99999999999999T",
                       "--out", c.path("p"), "-q")
    return judge_refusal(rc, err)


@case("values", "probe --stability --lr-min 0")
def _(c):
    rc, _, err = c.run("probe", "--stability", "-w", "synthetic_regression", "-a", "sgd", "--lr-min", "0",
                       "--out", c.path("p"), "-q")
    return judge_refusal(rc, err, "--lr-min")


@case("values", "score of a store whose trials are all unfinished")
def _(c):
    p = subprocess.Popen([c.pacer_path, "tune", "-w", "fmnist_mlp", "-a", "sgd", "--ruleset", "self", "--budget",
                          "1000", "--ignore-targets", "--max-steps", "100000", "--threads", "1", "-q", "--store",
                          c.path("u.db")], cwd=c.dir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(8)
    p.kill()
    p.wait()
    rc, out, err = c.run("score", c.path("u.db"), "--self-tuning")
    if rc == 0 and "warning" not in err:
        return "wrong", "a leaderboard without a warning"
    return ("ok", err.strip()[:160]) if rc == 0 else judge_refusal(rc, err)


# ---- validate before work; clear messages -------------------------------------------------------

@case("early", "tune with an unwritable --out")
def _(c):
    start = time.time()
    rc, _, err = c.run("tune", "-w", "synthetic_regression", "-a", "sgd", "--ruleset", "self", "--max-steps", "40",
                       "--threads", "1", "-q", "--store", c.path("s.db"), "--out", "/proc/pacer/logs")
    verdict = judge_refusal(rc, err)
    if verdict[0] == "ok" and os.path.exists(c.path("s.db")):
        return "unclear", "refused after the store was written"
    return verdict


@case("early", "score with an unwritable --out")
def _(c):
    store = c.store()
    rc, _, err = c.run("score", store, "--self-tuning", "-o", "/proc/pacer/scores")
    return judge_refusal(rc, err)


@case("early", "probe --stability --warmups 0")
def _(c):
    start = time.time()
    rc, _, err = c.run("probe", "--stability", "-w", "synthetic_regression", "-a", "sgd", "--warmups", "0",
                       "--out", c.path("p"), "-q")
    verdict = judge_refusal(rc, err)
    if verdict[0] == "ok" and time.time() - start > 5:
        return "unclear", "refused only after the sweep"
    return verdict


@case("messages", "a folder given as --hparams")
def _(c):
    os.mkdir(c.path("h"))
    rc, _, err = c.run("run", *QUICK, "--hparams", c.path("h"))
    verdict = judge_refusal(rc, err)
    return ("unclear", err.strip()) if verdict[0] == "ok" and "folder" not in err and "directory" not in err else verdict


@case("messages", "a folder given as a plugin")
def _(c):
    os.mkdir(c.path("plug"))
    rc, _, err = c.run("run", "-w", "synthetic_regression", "-a", c.path("plug"), "--max-steps", "5", "-q")
    verdict = judge_refusal(rc, err)
    wrong_diagnosis = "missing" in err or "no such file" in err
    return ("unclear", err.strip()) if verdict[0] == "ok" and wrong_diagnosis else verdict


@case("messages", "a symlink loop under score")
def _(c):
    os.mkdir(c.path("logs"))
    os.symlink("loop", c.path("logs", "loop"))
    rc, _, err = c.run("score", c.path("logs"))
    return judge_refusal(rc, err)


@case("messages", "pacer study frob")
def _(c):
    store = c.store()
    rc, _, err = c.run("study", "frob", store)
    verdict = judge_refusal(rc, err)
    return ("unclear", err.strip()) if verdict[0] == "ok" and "frob" not in err else verdict


@case("messages", "a store on read-only media is read")
def _(c):
    store = c.store()
    media = mount_tmpfs(c, "media", "16m")
    if media is None:
        return "skipped", "needs root to mount a read-only file system"
    try:
        shutil.copy(store, media)
        subprocess.run(["mount", "-o", "remount,ro", media], check=True)
        rc, out, err = c.run("study", "list", os.path.join(media, "s.db"))
        rc2, out2, err2 = c.run("score", os.path.join(media, "s.db"), "--self-tuning")
    finally:
        subprocess.run(["umount", media])
    if rc == 0 and rc2 == 0:
        return "ok", "read"
    return "unclear", (err or err2).strip()[:160]


@case("signals", "SIGHUP during pacer run writes trial.json")
def _(c):
    out = c.path("r")
    p = subprocess.Popen([c.pacer_path, "run", "-w", "fmnist_mlp", "-a", "sgd", "--max-steps", "100000", "--budget",
                          "1000", "--ignore-targets", "--threads", "1", "-q", "--out", out], cwd=c.dir,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(out, "hparams.json")) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)
    p.send_signal(signal.SIGHUP)
    p.wait(60)
    return ("ok", "written") if os.path.exists(os.path.join(out, "trial.json")) else ("data-loss", "no trial.json")


@case("newcomer", "pacer run without --out says it saves nothing")
def _(c):
    rc, out, err = c.run("run", "-w", "synthetic_regression", "-a", "sgd", "--max-steps", "5", "--eval-every", "5",
                         "--threads", "1")
    return ("ok", "said") if "--out" in out + err else ("unclear", "says nothing of where results went")


# ---- round 4 (issue 48): read commands that never write, contained submissions, orphans ----------
# Names start with "r4:" (tools/hardening/hostile_cases.py PACER -k r4: runs only these).

OLD_STORE = os.path.join(REPO, "tests", "data", "store_before_trial_spec.db")  # schema 1
HOSTILE = os.path.join(REPO, "tests", "data", "python_submissions", "hostile.py")


def old_store(c):
    shutil.copy(OLD_STORE, c.path("old.db"))
    return c.path("old.db"), read(c.path("old.db"), "rb")


@case("read-only", "r4: study list, score and a refused delete of a schema-1 store")
def _(c):
    store, before = old_store(c)
    c.run("study", "list", store)
    c.run("score", store, "--time", "steps")
    c.run("study", "delete", store, "nadamw")
    return ("ok", "left as it was") if read(store, "rb") == before else ("data-loss", "the store was rewritten")


@case("read-only", "r4: study export --csv -o the store itself")
def _(c):
    store = c.store()
    before = read(store, "rb")
    rc, _, err = c.run("study", "export", store, "--csv", "-o", store)
    return judge_refusal(rc, err, harmed=read(store, "rb") != before)


@case("read-only", "r4: study delete NAME --yes where an external and a self study share NAME")
def _(c):
    store = c.store(studies=1)
    open(c.path("space.json"), "w").write('{"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"}}')
    c.run("tune", "-w", "synthetic_regression", "-a", "sgd", "--space", c.path("space.json"), "--studies", "1",
          "--trials", "1", "--max-steps", "5", "--eval-every", "5", "--threads", "1", "-q", "--store", store)
    import sqlite3
    count = lambda: sqlite3.connect(store).execute("SELECT count(*) FROM studies").fetchone()[0]
    before = count()
    rc, _, err = c.run("study", "delete", store, "sgd/synthetic_regression/study_1", "--yes")
    return judge_refusal(rc, err, "names 2 studies", harmed=before - count() > 1)


@case("read-only", "r4: score STORE COPY with the same studies in both")
def _(c):
    store = c.store()
    c.run("study", "copy", store, c.path("copy.db"))
    rc, _, err = c.run("score", "--self-tuning", store, c.path("copy.db"))
    return judge_refusal(rc, err, "is in both")


@case("read-only", "r4: score STORE STORE")
def _(c):
    store = c.store()
    rc, _, err = c.run("score", "--self-tuning", store, store)
    return judge_refusal(rc, err, "given twice")


def hostile_tune(c, how, *extra, timeout=300):
    env = dict(os.environ, PACER_TEST_HOSTILE=how)
    rc, out, err = c.run("tune", "-w", "fmnist_mlp", "-a", HOSTILE, "--studies", "1", "--trials", "2", "--max-steps",
                         "10", "--eval-every", "5", "--threads", "1", "--store", c.path("h.db"), *extra,
                         timeout=timeout, env=env)
    _, shown, _ = c.run("study", "show", c.path("h.db"))
    failed = sum(" failed " in line for line in shown.splitlines())
    return rc, err, failed


@case("contained", "r4: a Python submission that segfaults inside pacer tune",
      covered_by="PythonSubmissionTest.ASubmissionThatCrashesHangsOrExitsFailsItsTrialAlone")
def _(c):
    rc, err, failed = hostile_tune(c, "segfault")
    if crashed(rc, err):
        return "crash", "tune died: rc %d" % rc
    return ("ok", "both trials failed, study done") if failed == 2 else ("wrong", "%d trials failed" % failed)


@case("contained", "r4: a Python submission whose step never returns (Ctrl-C ignored)",
      covered_by="PythonSubmissionTest.ASubmissionThatCrashesHangsOrExitsFailsItsTrialAlone")
def _(c):
    rc, err, failed = hostile_tune(c, "hang", "--trial-limit", "20", timeout=120)
    if crashed(rc, err):
        return "crash", "rc %d" % rc
    return ("ok", "stopped at the limit, failed") if failed == 2 else ("wrong", "%d trials failed" % failed)


@case("contained", "r4: a Python submission calling os._exit(0) inside pacer tune",
      covered_by="PythonSubmissionTest.ASubmissionThatCrashesHangsOrExitsFailsItsTrialAlone")
def _(c):
    rc, err, failed = hostile_tune(c, "exit")
    return ("ok", "both trials failed with the reason") if failed == 2 else ("wrong", "rc %d, %d failed" % (rc, failed))


@case("orphans", "r4: kill -9 of pacer tune --workers 2 leaves no worker running")
def _(c):
    open(c.path("space.json"), "w").write('{"learning_rate": {"min": 0.02, "max": 0.2, "scaling": "log"}}')
    p = subprocess.Popen([c.pacer_path, "tune", "-w", "synthetic_regression", "-a", "sgd", "--space",
                          c.path("space.json"), "--studies", "2", "--trials", "3", "--max-steps", "300000",
                          "--eval-every", "10000", "--ignore-targets", "--budget", "1000", "--threads", "1", "-q",
                          "--workers", "2", "--store", c.path("w.db")], cwd=c.dir,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(4)
    p.kill()
    p.wait()
    pattern = "[-]-store " + c.path("w.db")
    deadline = time.time() + 20
    while subprocess.run(["pgrep", "-f", pattern], stdout=subprocess.DEVNULL).returncode == 0 and time.time() < deadline:
        time.sleep(0.2)
    if subprocess.run(["pgrep", "-f", pattern], stdout=subprocess.DEVNULL).returncode == 0:
        subprocess.run(["pkill", "-9", "-f", pattern])
        return "wrong", "workers ran on unseen after their command was killed"
    return "ok", "the workers stopped"


@case("messages", "r4: score a missing file, an empty file")
def _(c):
    open(c.path("empty.db"), "w").close()
    rc1, _, err1 = c.run("score", c.path("missing.db"))
    rc2, _, err2 = c.run("score", c.path("empty.db"))
    first = judge_refusal(rc1, err1, "no such file")
    return first if first[0] != "ok" else judge_refusal(rc2, err2, "empty file")


@case("messages", "r4: a folder without submission.py given as -a")
def _(c):
    os.mkdir(c.path("sub"))
    rc, _, err = c.run("run", "-w", "synthetic_regression", "-a", c.path("sub"), "--max-steps", "5", "-q")
    return judge_refusal(rc, err, "submission.py")


@case("messages", "r4: --targets whose metric is named validation/loss")
def _(c):
    store = c.store()
    open(c.path("t.json"), "w").write('{"synthetic_regression": {"metric": "validation/loss", "min": 1, '
                                      '"validation_target": 0.5}}')
    rc, _, err = c.run("score", "--self-tuning", store, "--targets", c.path("t.json"))
    return ("ok", "read as loss, with a warning") if rc == 0 and "read as 'loss'" in err else (
        "unclear", "rc %d: %s" % (rc, err.strip()[:160]))


@case("messages", "r4: board --out naming the store fails before any trial")
def _(c):
    store = c.store()
    start = time.time()
    rc, _, err = c.run("board", "-a", "sgd", "-w", "synthetic_regression", "--rulesets", "external", "--reruns", "0",
                       "--studies", "1", "--trials", "1", "--max-steps", "5", "-q", "--store", c.path("b.db"),
                       "--spaces", os.path.join(REPO, "spaces"), "--out", store)
    verdict = judge_refusal(rc, err, "is a file")
    return ("unclear", "refused only after running trials") if verdict[0] == "ok" and os.path.exists(
        c.path("b.db")) else verdict


# ---- the rest of issue 48's classes (the cpu clock and child processes, threads, pacer run, a board) ----

SUBMISSIONS = os.path.join(REPO, "tests", "data", "python_submissions")


@case("contained", "r4: a Python submission that forks inside a cpu-clock pacer tune",
      covered_by="PythonSubmissionTest.ASubmissionThatCrashesHangsOrExitsFailsItsTrialAlone")
def _(c):
    rc, err, failed = hostile_tune(c, "fork", "--clock", "cpu")
    if crashed(rc, err):
        return "crash", "rc %d" % rc
    if failed == 2 and "may start no process" in err:
        return "ok", "both trials failed: its fork refused, with the reason"
    return "wrong", "%d of 2 trials failed: its child's work was not counted by the cpu clock" % failed


@case("contained", "r4: torch.set_num_threads(2) in a submission under --threads 1",
      covered_by="PythonSubmissionTest.ASubmissionThatCrashesHangsOrExitsFailsItsTrialAlone")
def _(c):
    rc, err, failed = hostile_tune(c, "threads")
    return ("ok", "both trials failed with the reason") if failed == 2 else (
        "wrong", "%d of 2 trials failed: it used more threads than granted" % failed)


@case("contained", "r4: pacer run of a Python submission that segfaults",
      covered_by="PythonSubmissionTest.PacerRunOfACrashingSubmissionSaysWhyAndWritesAFailedTrial")
def _(c):
    env = dict(os.environ, PACER_TEST_HOSTILE="segfault")
    rc, _, err = c.run("run", "-w", "fmnist_mlp", "-a", HOSTILE, "--set", "learning_rate=0.05", "--max-steps", "10",
                       "--eval-every", "5", "--threads", "1", "-q", "--out", c.path("r"), env=env)
    if rc < 0 or rc >= 128:
        return "crash", "died by signal %d, no message" % (-rc if rc < 0 else rc - 128)
    trial = c.path("r", "trial.json")
    if rc == 1 and "signal 11" in err and os.path.exists(trial) and '"failed"' in read(trial):
        return "ok", "a message, exit 1, a failed trial.json"
    return "unclear", "rc %d: %s" % (rc, err.strip()[:160])


@case("values", "r4: --resume --threads 2 of a 1-thread cpu-clock checkpoint")
def _(c):
    run = ["run", *QUICK[:-3], "-q", "--clock", "cpu", "--checkpoint-every", "20", "--out", c.path("r")]
    rc, _, err = c.run(*run, "--threads", "1")
    if rc != 0:
        return "skipped", "the first run failed: " + err.strip()[:120]
    os.remove(c.path("r", "trial.json"))  # as a kill -9 after the last checkpoint leaves it
    rc, _, err = c.run(*run, "--threads", "2", "--resume")
    return judge_refusal(rc, err, "threads (1 in the checkpoint, 2 now)")


@case("values", "r4: score of cpu-clock runs with 1 and 2 threads")
def _(c):
    for threads in ("1", "2"):
        rc, _, err = c.run("run", *QUICK[:-3], "-q", "--clock", "cpu", "--threads", threads, "--out", c.path("t" + threads))
        if rc != 0:
            return "skipped", "a run failed: " + err.strip()[:120]
    rc, _, err = c.run("score", c.path("t1"), c.path("t2"))
    if rc != 0:
        return "unclear", "rc %d: %s" % (rc, err.strip()[:160])
    return ("ok", "ranked, with a warning naming both counts") if "thread counts" in err else (
        "wrong", "ranked together without a word")


@case("contained", "r4: a board with a segfaulting and a hanging Python submission",
      covered_by="PythonSubmissionTest.ABoardWithASegfaultingAndAHangingSubmissionCompletesWithinItsMaxHours")
def _(c):
    env = dict(os.environ, ASAN_OPTIONS="handle_segv=0")
    start = time.time()
    rc, out, err = c.run("board", "-a", "nadamw," + os.path.join(SUBMISSIONS, "segfaults.py") + "," +
                         os.path.join(SUBMISSIONS, "hangs.py"), "-w", "fmnist_mlp", "--rulesets", "external",
                         "--reruns", "0", "--studies", "1", "--trials", "1", "--max-steps", "10", "--eval-every", "5",
                         "--trial-limit", "30", "--max-hours", "0.05", "--spaces", os.path.join(REPO, "spaces"),
                         "--store", c.path("b.db"), "--out", c.path("b"),
                         timeout=400, env=env)
    took = time.time() - start
    if crashed(rc, err):
        return "crash", "rc %d after %.0f s" % (rc, took)
    board = c.path("b", "board.md")
    if rc == 0 and os.path.exists(board) and "Trials done: 3 of 3" in read(board) and "signal 11" in err and \
            "ran past its limit" in err:
        return "ok", "complete in %.0f s, both trials failed and named" % took
    return "wrong", "rc %d after %.0f s: %s" % (rc, took, err.strip()[-160:])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pacer")
    parser.add_argument("--json", help="write the verdicts here")
    parser.add_argument("-k", "--only", help="run the cases whose name contains this")
    parser.add_argument("--skip-covered", action="store_true",
                        help="leave out the cases a GoogleTest of the suite asserts too (what CTest runs)")
    args = parser.parse_args()
    pacer = os.path.abspath(args.pacer)
    results = []
    if args.skip_covered:
        # A case left to a GoogleTest must name one that exists: a renamed or removed test would
        # otherwise leave the case run by nothing.
        sources = "".join(read(f) for f in glob.glob(os.path.join(REPO, "tests", "*_test.cpp")))
        defined = {"%s.%s" % m for m in re.findall(r"TEST(?:_F|_P)?\(\s*(\w+),\s*(\w+)\s*\)", sources)}
        missing = sorted({c[3] for c in CASES if c[3] and c[3] not in defined})
        if missing:
            print("hostile_cases.py: covered_by names no test in tests/: %s" % ", ".join(missing), file=sys.stderr)
            return 2
    covered = 0
    for category, name, fn, covered_by in CASES:
        if args.only and args.only not in name:
            continue
        if args.skip_covered and covered_by:
            print("%-10s %-11s %s: %s" % ("covered", category, name, "by " + covered_by), flush=True)
            covered += 1
            continue
        root = tempfile.mkdtemp(prefix="pacer_hostile_")
        try:
            verdict, detail = fn(Ctx(pacer, root))
        except subprocess.TimeoutExpired:
            verdict, detail = "unclear", "timed out (a hang)"
        except Exception as e:  # the harness's own failure is not the executable's
            verdict, detail = "skipped", "harness: %r" % e
        finally:
            shutil.rmtree(root, ignore_errors=True)
        results.append({"category": category, "case": name, "verdict": verdict, "detail": detail})
        print("%-10s %-11s %s: %s" % (verdict, category, name, detail.replace("\n", " ")[:140]), flush=True)
    counts = {}
    for r in results:
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    print("cases %d: %s%s" % (len(results), ", ".join("%s %d" % kv for kv in sorted(counts.items())),
                              "; %d left to the GoogleTests that cover them" % covered if covered else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pacer": pacer, "counts": counts, "cases": results}, f, indent=2)
    bad = counts.get("crash", 0) + counts.get("data-loss", 0) + counts.get("wrong", 0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
