#!/usr/bin/python3
"""Golden values for Pacer's optimizer update rules and learning-rate schedules.

Run with Debian's python, which has torch 1.13 and numpy:

    /usr/bin/python3 tools/golden/generate_optimizer_golden.py

Writes (relative to the source root):
  tests/golden/optimizers.json  -- a fixed float64 model, inputs, targets and initial parameters,
                                   and for each optimizer case the flattened parameters after
                                   steps 1, 10 and 50 (torch.optim for SGD/Adam/AdamW, a direct
                                   transcription of the AlgoPerf formula for NAdamW).
  tests/golden/schedules.json   -- learning rates of warmup_cosine / warmup_linear_decay / constant,
                                   computed from their definitions (and the cosine one
                                   cross-checked against torch.optim.lr_scheduler).

Consumed by tests/update_rules_test.cpp and tests/schedules_test.cpp. The output is
deterministic; regenerate only when the cases change.
"""
import json
import math
import os
import sys
import warnings

import numpy as np
import torch

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_DIR = os.path.join(ROOT, "tests", "golden")

# ---------------------------------------------------------------------------------------------
# Model: Linear(5, 4) -> tanh -> Linear(4, 3), MSE loss (mean over all elements).
# Parameter order (as model.parameters()): fc1.weight [4,5], fc1.bias [4], fc2.weight [3,4],
# fc2.bias [3]; the flat vector is their row-major concatenation (39 values).
# ---------------------------------------------------------------------------------------------
IN, HIDDEN, OUT, BATCH = 5, 4, 3, 8
SNAPSHOT_STEPS = [1, 10, 50]
NUM_STEPS = 50


def make_data():
    rng = np.random.RandomState(0)
    fc1_w = rng.uniform(-1.0, 1.0, size=(HIDDEN, IN)) / math.sqrt(IN)
    fc1_b = rng.uniform(-1.0, 1.0, size=(HIDDEN,)) / math.sqrt(IN)
    fc2_w = rng.uniform(-1.0, 1.0, size=(OUT, HIDDEN)) / math.sqrt(HIDDEN)
    fc2_b = rng.uniform(-1.0, 1.0, size=(OUT,)) / math.sqrt(HIDDEN)
    x = rng.normal(size=(BATCH, IN))
    y = rng.normal(size=(BATCH, OUT))
    flat = np.concatenate([fc1_w.ravel(), fc1_b, fc2_w.ravel(), fc2_b])
    return flat, x, y


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(IN, HIDDEN)
        self.fc2 = torch.nn.Linear(HIDDEN, OUT)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


def build_model(flat):
    model = Net()
    with torch.no_grad():
        offset = 0
        for p in model.parameters():
            n = p.numel()
            p.copy_(torch.from_numpy(flat[offset:offset + n]).view_as(p))
            offset += n
    assert offset == flat.size
    return model


def flatten(tensors):
    return torch.cat([t.detach().reshape(-1) for t in tensors]).tolist()


def loss_and_grads(model, x, y):
    model.zero_grad(set_to_none=True)
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss.item()


class NAdamW:
    """AlgoPerf NAdamW, written directly from the formula (t = step after increment):
         m = b1*m + (1-b1)*g ; v = b2*v + (1-b2)*g^2
         m_hat = (b1*m + (1-b1)*g) / (1 - b1^t) ; v_hat = v / (1 - b2^t)
         theta -= lr * (m_hat / (sqrt(v_hat) + eps) + wd * theta)
    """

    def __init__(self, params, lr, betas, eps, weight_decay):
        self.params = list(params)
        self.lr, (self.b1, self.b2), self.eps, self.wd = lr, betas, eps, weight_decay
        self.t = 0
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]

    @torch.no_grad()
    def step(self):
        self.t += 1
        b1, b2, t = self.b1, self.b2, self.t
        for p, m, v in zip(self.params, self.m, self.v):
            g = p.grad
            m.copy_(b1 * m + (1 - b1) * g)
            v.copy_(b2 * v + (1 - b2) * g * g)
            m_hat = (b1 * m + (1 - b1) * g) / (1 - b1 ** t)
            v_hat = v / (1 - b2 ** t)
            p.copy_(p - self.lr * (m_hat / (torch.sqrt(v_hat) + self.eps) + self.wd * p))


# name -> (kind, options). kind selects the C++ call: "sgd" -> pacer::sgd_step, else adam_step
# with the variant named by kind.
CASES = [
    ("sgd_plain", "sgd", dict(lr=0.05, momentum=0.0, nesterov=False, weight_decay=0.0)),
    ("sgd_plain_wd", "sgd", dict(lr=0.1, momentum=0.0, nesterov=False, weight_decay=0.01)),
    ("sgd_momentum", "sgd", dict(lr=0.05, momentum=0.9, nesterov=False, weight_decay=0.001)),
    ("sgd_momentum_lr002", "sgd", dict(lr=0.02, momentum=0.9, nesterov=False, weight_decay=0.0)),
    ("sgd_nesterov", "sgd", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.001)),
    ("sgd_nesterov_lr01", "sgd", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.0)),
    ("adam", "adam", dict(lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01)),
    ("adam_b2_099", "adam", dict(lr=0.003, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.0)),
    ("adamw", "adamw", dict(lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.1)),
    ("adamw_b2_099", "adamw", dict(lr=0.003, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.01)),
    ("nadamw", "nadamw", dict(lr=0.01, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.1)),
    ("nadamw_b2_099", "nadamw", dict(lr=0.003, beta1=0.9, beta2=0.99, eps=1e-8, weight_decay=0.01)),
]


def make_optimizer(kind, o, params):
    if kind == "sgd":
        return torch.optim.SGD(params, lr=o["lr"], momentum=o["momentum"], dampening=0.0,
                               nesterov=o["nesterov"], weight_decay=o["weight_decay"], foreach=False)
    betas = (o["beta1"], o["beta2"])
    if kind == "adam":
        return torch.optim.Adam(params, lr=o["lr"], betas=betas, eps=o["eps"], weight_decay=o["weight_decay"],
                                amsgrad=False, foreach=False)
    if kind == "adamw":
        return torch.optim.AdamW(params, lr=o["lr"], betas=betas, eps=o["eps"], weight_decay=o["weight_decay"],
                                 amsgrad=False, foreach=False)
    if kind == "nadamw":
        return NAdamW(params, lr=o["lr"], betas=betas, eps=o["eps"], weight_decay=o["weight_decay"])
    raise ValueError(kind)


def run_case(kind, options, flat0, x, y):
    model = build_model(flat0)
    opt = make_optimizer(kind, options, model.parameters())
    snapshots, losses = {}, []
    for step in range(1, NUM_STEPS + 1):
        losses.append(loss_and_grads(model, x, y))
        opt.step()
        if step in SNAPSHOT_STEPS:
            snapshots[str(step)] = flatten(model.parameters())
    return snapshots, losses


# ---------------------------------------------------------------------------------------------
# Schedules, from their definitions (step = 0-based index of the update being taken).
# ---------------------------------------------------------------------------------------------
def warmup_cosine(lr, warmup, step_hint, step):
    if step < warmup:
        return lr * step / warmup
    t = step - warmup
    decay = max(1, step_hint - warmup)
    if t >= decay:
        return 0.0
    return lr * 0.5 * (1.0 + math.cos(math.pi * t / decay))


def warmup_linear_decay(lr, warmup, decay_steps, end_factor, step):
    if step < warmup:
        return lr * step / warmup
    t = step - warmup
    if decay_steps == 0 or t >= decay_steps:
        return lr * end_factor
    return lr * (1.0 - t / decay_steps * (1.0 - end_factor))


def torch_warmup_cosine(lr, warmup, step_hint, num_steps):
    """The same schedule from torch.optim.lr_scheduler (LinearLR + CosineAnnealingLR); LinearLR
    refuses start_factor 0, so a tiny one is used and the comparison is approximate."""
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=lr)
    decay = max(1, step_hint - warmup)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=decay, eta_min=0.0)
    if warmup > 0:
        linear = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1e-12, end_factor=1.0, total_iters=warmup)
        sched = torch.optim.lr_scheduler.SequentialLR(opt, [linear, cosine], milestones=[warmup])
    else:
        sched = cosine
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SequentialLR steps its children with an epoch (deprecated)
        for _ in range(num_steps):
            out.append(opt.param_groups[0]["lr"])
            opt.step()
            sched.step()
    return out


SCHEDULE_CASES = [
    dict(name="cosine_w10_h100", kind="warmup_cosine", lr=0.002, warmup_steps=10, step_hint=100, num_steps=121),
    dict(name="cosine_w0_h50", kind="warmup_cosine", lr=0.1, warmup_steps=0, step_hint=50, num_steps=61),
    dict(name="cosine_w25_h200", kind="warmup_cosine", lr=1.5, warmup_steps=25, step_hint=200, num_steps=211),
    dict(name="cosine_w5_h5", kind="warmup_cosine", lr=0.01, warmup_steps=5, step_hint=5, num_steps=10),
    dict(name="linear_w10_d50_e01", kind="warmup_linear_decay", lr=0.1, warmup_steps=10, decay_steps=50,
         end_factor=0.1, num_steps=71),
    dict(name="linear_w0_d20_e0", kind="warmup_linear_decay", lr=0.05, warmup_steps=0, decay_steps=20,
         end_factor=0.0, num_steps=31),
    dict(name="linear_w5_d0_e05", kind="warmup_linear_decay", lr=0.02, warmup_steps=5, decay_steps=0,
         end_factor=0.5, num_steps=12),
    dict(name="linear_w3_d7_e2", kind="warmup_linear_decay", lr=0.3, warmup_steps=3, decay_steps=7,
         end_factor=2.0, num_steps=15),
    dict(name="constant", kind="constant", lr=0.007, num_steps=20),
]


def schedule_values(c):
    steps = range(c["num_steps"])
    if c["kind"] == "warmup_cosine":
        return [warmup_cosine(c["lr"], c["warmup_steps"], c["step_hint"], s) for s in steps]
    if c["kind"] == "warmup_linear_decay":
        return [warmup_linear_decay(c["lr"], c["warmup_steps"], c["decay_steps"], c["end_factor"], s) for s in steps]
    return [c["lr"] for _ in steps]


# ---------------------------------------------------------------------------------------------
# Commit-friendly JSON: objects indented, numeric lists on one line, floats via repr.
# ---------------------------------------------------------------------------------------------
def dump(value, indent=0):
    pad = "  " * indent
    if isinstance(value, dict):
        items = [f'{pad}  {json.dumps(k)}: {dump(v, indent + 1)}' for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        items = [f"{pad}  {dump(v, indent + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    if isinstance(value, float):
        assert math.isfinite(value)
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(dump(v) for v in value) + "]"
    return json.dumps(value)


def write(name, obj):
    os.makedirs(OUT_DIR, exist_ok=True)
    path = os.path.join(OUT_DIR, name)
    with open(path, "w") as f:
        f.write(dump(obj) + "\n")
    # Round trip: every float must come back bit-identical.
    with open(path) as f:
        assert json.load(f) == json.loads(json.dumps(obj))
    print(f"wrote {os.path.relpath(path, ROOT)}")


def main():
    flat0, x, y = make_data()
    model = build_model(flat0)
    x_t, y_t = torch.from_numpy(x), torch.from_numpy(y)
    initial_loss = loss_and_grads(model, x_t, y_t)
    initial_grad = flatten(p.grad for p in model.parameters())

    cases = []
    for name, kind, options in CASES:
        snapshots, losses = run_case(kind, options, flat0, x_t, y_t)
        assert losses[-1] < losses[0], f"{name}: loss did not decrease ({losses[0]} -> {losses[-1]})"
        cases.append(dict(name=name, kind=kind, options=options, final_loss=losses[-1], params=snapshots))
        print(f"{name:20s} loss {losses[0]:.6f} -> {losses[-1]:.6f}")

    write("optimizers.json", {
        "generator": "tools/golden/generate_optimizer_golden.py",
        "torch_version": torch.__version__,
        "model": {
            "description": "Linear(5,4) -> tanh -> Linear(4,3), float64, MSE loss (mean); flat parameters are "
                         "fc1.weight[4,5], fc1.bias[4], fc2.weight[3,4], fc2.bias[3] concatenated row-major",
            "input_size": IN, "hidden_size": HIDDEN, "output_size": OUT, "batch_size": BATCH,
        },
        "snapshot_steps": SNAPSHOT_STEPS,
        "initial_params": flat0.tolist(),
        "inputs": x.ravel().tolist(),
        "targets": y.ravel().tolist(),
        "initial_loss": initial_loss,
        "initial_grad": initial_grad,
        "cases": cases,
    })

    schedules = []
    for c in SCHEDULE_CASES:
        values = schedule_values(c)
        if c["kind"] == "warmup_cosine":
            # Cross-check against torch's schedulers up to step_hint (CosineAnnealingLR is periodic
            # beyond T_max, so only the decaying half is comparable).
            reference = torch_warmup_cosine(c["lr"], c["warmup_steps"], c["step_hint"], c["num_steps"])
            for s in range(min(c["num_steps"], c["step_hint"] + 1)):
                if abs(values[s] - reference[s]) > 1e-9 * c["lr"]:
                    sys.exit(f"{c['name']}: step {s}: definition {values[s]!r} vs torch {reference[s]!r}")
        entry = {k: v for k, v in c.items() if k not in ("num_steps",)}
        entry["values"] = values  # values[s] = lr at step s, s = 0 .. num_steps-1
        schedules.append(entry)
    write("schedules.json", {
        "generator": "tools/golden/generate_optimizer_golden.py",
        "description": "values[s] is the learning rate at 0-based step s",
        "schedules": schedules,
    })


if __name__ == "__main__":
    main()
