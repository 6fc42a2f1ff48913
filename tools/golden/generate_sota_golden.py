#!/usr/bin/python3
"""Golden values for Pacer's state-of-the-art optimizer update rules.

Run with Debian's python, which has torch 1.13 and numpy:

    /usr/bin/python3 tools/golden/generate_sota_golden.py

Writes tests/golden/sota_optimizers.json (consumed by tests/sota_optimizers_test.cpp): the shared
float64 model of golden_model.py, and for each case the learning rates handed to the rule, the
loss before every step, the parameters after steps 1, 2, 5, 10, 20, 25 and the optimizer state
after step 25. Every step takes the full-batch gradient at the current parameters.

Each rule below is an independent transcription, in plain float64 torch ops per parameter tensor,
of the reference implementation named here (repository, file, commit read):

  lamb      cybertronai/pytorch-lamb  pytorch_lamb/lamb.py @56bda77 (Lamb.step, adam=False).
            No bias correction; ||p|| clamped to [0, 10]; trust ratio 1 if either norm is 0.
  lion      google/automl  lion/lion_pytorch.py @b21d6ce (Lion.step).
  adafactor pytorch/pytorch  torch/optim/_adafactor.py (2.x, _single_tensor_adafactor,
            maximize=False; torch 1.13 has no Adafactor, so it is not cross-checked here).
  ademamix  apple/ml-ademamix  pytorch/ademamix.py @e732715 (AdEMAMix.step), with
            alpha_warmup = beta3_warmup = alpha_beta3_warmup.
  muon      KellerJordan/Muon  muon.py @5bc6993 (MuonWithAuxAdam: muon_update,
            zeropower_via_newtonschulz5, adam_update). DEVIATION: the reference runs Newton-Schulz
            in bfloat16; here it runs in the parameter dtype (float64).
  sam       davda54/sam  sam.py @87a9604 (first_step / second_step, old_p restore, adaptive)
            over torch.optim.AdamW (torch 1.13 _single_tensor_adamw); the AdamW transcription
            is cross-checked against torch.optim.AdamW below (max abs diff < 1e-12).
  schedule_free_adamw  facebookresearch/schedule_free  schedulefree/adamw_schedulefree.py
            @43e5c2d (train-mode step, inner_momentum=0). NOTE: since 59ed9b6 (Nov 2024) the
            reference bias-corrects inside the denominator, sqrt(v / (1 - beta2^t)) + eps, and
            lr_max / weights use lr*sched without a sqrt(bias_correction2) factor; older
            versions (e.g. 0083572) differ. DEVIATION: the reference's `lr * sched` (its own
            warmup) is the caller's lr_t here.

Learning rates: lr_t = peak * min(1, t/3) * (0.55 + 0.45 * cos(pi * (t - 1) / 25)), t = 1..25,
except schedule_free_adamw: lr_t = peak * min(1, t/5). Rules only add what their reference adds
(Adafactor's min(lr, 1/sqrt(t)); AdEMAMix's alpha/beta3 warmup; schedule-free's lr_max/weights).
The output is deterministic; regenerate only when the cases change.
"""
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_model import CHECKPOINTS, STEPS, flat, gradients, make_data, model_record  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.path.join(ROOT, "tests", "golden", "sota_optimizers.json")
HEAD = 5  # index of head.weight, the output head (kept off Muon)


def cosine_lrs(peak):
    return [peak * min(1.0, t / 3.0) * (0.55 + 0.45 * math.cos(math.pi * (t - 1) / 25.0))
            for t in range(1, STEPS + 1)]


def zeros_state(params, *names):
    return {n: [torch.zeros_like(p) for p in params] for n in names}


# --------------------------------------------------------------------------------------------
# LAMB: m, v without bias correction; step = m/(sqrt(v)+eps) + wd*p; trust = clamp(||p||)/||step||.
# --------------------------------------------------------------------------------------------
def lamb(params, grads, st, lr, t, o, grad_at):
    for i, (p, g) in enumerate(zip(params, grads)):
        m = st["exp_avg"][i] = st["exp_avg"][i] * o["beta1"] + g * (1 - o["beta1"])
        v = st["exp_avg_sq"][i] = st["exp_avg_sq"][i] * o["beta2"] + (1 - o["beta2"]) * g * g
        weight_norm = p.pow(2).sum().sqrt().clamp(0, 10)   # norm of p before this step
        step = m / (v.sqrt() + o["eps"])
        if o["weight_decay"] != 0:
            step = step + o["weight_decay"] * p
        adam_norm = step.pow(2).sum().sqrt()
        trust = 1.0 if (weight_norm == 0 or adam_norm == 0) else (weight_norm / adam_norm).item()
        params[i] = p + (-lr * trust) * step


# --------------------------------------------------------------------------------------------
# Lion: decoupled decay first, sign of the beta1 interpolation, then the beta2 momentum update.
# --------------------------------------------------------------------------------------------
def lion(params, grads, st, lr, t, o, grad_at):
    for i, (p, g) in enumerate(zip(params, grads)):
        p = p * (1 - lr * o["weight_decay"])
        m = st["exp_avg"][i]
        update = m * o["beta1"] + g * (1 - o["beta1"])
        params[i] = p + (-lr) * torch.sign(update)
        st["exp_avg"][i] = m * o["beta2"] + g * (1 - o["beta2"])   # uses the old m above


# --------------------------------------------------------------------------------------------
# Adafactor (torch 2.x): beta2_t = 1 - t^beta2_decay, rho = min(lr, 1/sqrt(t)),
# alpha = max(eps2, RMS(p before decay)) * rho, decay p *= 1 - lr*wd, factored over the last
# two dims for ndim >= 2 (rows: mean over dim -1, cols: mean over dim -2), eps1 clamps both the
# row-mean normaliser and (squared) the variance estimate, update clipped by RMS(u)/d.
# --------------------------------------------------------------------------------------------
def adafactor_init(params):
    st = {"row_var": [], "col_var": [], "variance": []}
    for p in params:
        if p.dim() > 1:
            st["row_var"].append(torch.zeros(p.shape[:-1] + (1,)))
            st["col_var"].append(torch.zeros(p.shape[:-2] + (1, p.shape[-1])))
            st["variance"].append(None)
        else:
            st["row_var"].append(None)
            st["col_var"].append(None)
            st["variance"].append(torch.zeros_like(p))
    return st


def adafactor(params, grads, st, lr, t, o, grad_at):
    eps1 = o["eps1"] if o["eps1"] != 0 else torch.finfo(torch.float64).eps   # 0 stands for None
    one_minus_beta2 = float(t) ** o["beta2_decay"]
    rho = min(lr, 1 / (float(t) ** 0.5))
    for i, (p, g) in enumerate(zip(params, grads)):
        alpha = max(o["eps2"], p.norm(2).item() / (p.numel() ** 0.5)) * rho
        if o["weight_decay"] != 0:
            p = p * (1 - lr * o["weight_decay"])
        if g.dim() > 1:
            row_mean = torch.linalg.vector_norm(g, dim=-1, keepdim=True).square() / g.size(-1)
            col_mean = torch.linalg.vector_norm(g, dim=-2, keepdim=True).square() / g.size(-2)
            row = st["row_var"][i] = torch.lerp(st["row_var"][i], row_mean, one_minus_beta2)
            col = st["col_var"][i] = torch.lerp(st["col_var"][i], col_mean, one_minus_beta2)
            var_est = (row @ col) / row.mean(dim=-2, keepdim=True).clamp(min=eps1)
        else:
            var_est = st["variance"][i] = torch.lerp(st["variance"][i], g * g, one_minus_beta2)
        u = var_est.clamp(min=eps1 * eps1).rsqrt() * g
        denom = max(1.0, u.norm(2).item() / ((u.numel() ** 0.5) * o["clip_threshold"]))
        params[i] = p + (-alpha / denom) * u


# --------------------------------------------------------------------------------------------
# AdEMAMix: schedulers get the per-parameter step AFTER its increment (1 at the first step);
# alpha warms up linearly from 0, beta3 linearly in half-life space from beta1; the fast EMA is
# bias-corrected, the slow one is not; weight decay is added to the update (scaled by lr).
# --------------------------------------------------------------------------------------------
def ademamix_schedules(t, o):
    warm = o["alpha_beta3_warmup"]
    if warm == 0 or t >= warm:
        return o["alpha"], o["beta3"]
    a = t / float(warm)
    alpha = (1.0 - a) * 0.0 + a * o["alpha"]
    half_life = lambda beta: math.log(0.5) / math.log(beta + 1e-8) - 1   # its own 1e-8
    beta3 = math.pow(0.5, 1 / ((1.0 - a) * half_life(o["beta1"]) + a * half_life(o["beta3"]) + 1))
    return alpha, beta3


def ademamix(params, grads, st, lr, t, o, grad_at):
    alpha, beta3 = ademamix_schedules(t, o)
    b1, b2 = o["beta1"], o["beta2"]
    bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
    for i, (p, g) in enumerate(zip(params, grads)):
        fast = st["exp_avg_fast"][i] = st["exp_avg_fast"][i] * b1 + (1 - b1) * g
        slow = st["exp_avg_slow"][i] = st["exp_avg_slow"][i] * beta3 + (1 - beta3) * g
        v = st["exp_avg_sq"][i] = st["exp_avg_sq"][i] * b2 + (1 - b2) * g * g
        denom = v.sqrt() / math.sqrt(bc2) + o["eps"]
        update = (fast / bc1 + alpha * slow) / denom + o["weight_decay"] * p
        params[i] = p + (-lr * update)


# --------------------------------------------------------------------------------------------
# Muon with auxiliary Adam. Muon tensors: m = lerp(m, g, 1-mu); nesterov uses lerp(g, m, mu);
# 4-D updates are viewed as [out, -1]; Newton-Schulz orthogonalises; the scale
# sqrt(max(1, rows/cols)) uses the ORIGINAL gradient's last two dims (as the reference does).
# Both groups: p *= 1 - lr*wd, then p -= lr*update, with the group's own lr.
# --------------------------------------------------------------------------------------------
def is_muon_tensor(i, p):
    return p.dim() >= 2 and i != HEAD


def newton_schulz(G, steps):
    a, b, c = 3.4445, -4.7750, 2.0315
    tall = G.size(-2) > G.size(-1)
    X = G.mT if tall else G
    X = X / (X.norm(dim=(-2, -1), keepdim=True) + 1e-7)
    for _ in range(steps):
        A = X @ X.mT
        B = b * A + (c * A) @ A          # the reference's `c * A @ A` parses as (c*A) @ A
        X = a * X + B @ X
    return X.mT if tall else X


def muon_init(params):
    st = {"momentum_buffer": [], "exp_avg": [], "exp_avg_sq": []}
    for i, p in enumerate(params):
        m = is_muon_tensor(i, p)
        st["momentum_buffer"].append(torch.zeros_like(p) if m else None)
        st["exp_avg"].append(None if m else torch.zeros_like(p))
        st["exp_avg_sq"].append(None if m else torch.zeros_like(p))
    return st


def muon(params, grads, st, lr, t, o, grad_at):
    adam_lr = lr * o["adam_lr_ratio"]
    b1, b2 = o["adam_beta1"], o["adam_beta2"]
    for i, (p, g) in enumerate(zip(params, grads)):
        if is_muon_tensor(i, p):
            mu = o["momentum"]
            m = st["momentum_buffer"][i] = torch.lerp(st["momentum_buffer"][i], g, 1 - mu)
            u = torch.lerp(g, m, mu) if o["nesterov"] else m
            if u.dim() == 4:
                u = u.reshape(u.size(0), -1)
            u = newton_schulz(u, int(o["ns_steps"])) * max(1, g.size(-2) / g.size(-1)) ** 0.5
            p = p * (1 - lr * o["weight_decay"])
            params[i] = p + (-lr) * u.reshape(p.shape)
        else:
            m = st["exp_avg"][i] = torch.lerp(st["exp_avg"][i], g, 1 - b1)
            v = st["exp_avg_sq"][i] = torch.lerp(st["exp_avg_sq"][i], g.square(), 1 - b2)
            u = (m / (1 - b1 ** t)) / ((v / (1 - b2 ** t)).sqrt() + o["adam_eps"])
            p = p * (1 - adam_lr * o["weight_decay"])
            params[i] = p + (-adam_lr) * u


# --------------------------------------------------------------------------------------------
# SAM over AdamW. Perturbation e = rho/(||g||+1e-12) * g (adaptive: norm of |p|*g, e scaled by
# p^2 * g); the second gradient is taken at w + e; w is restored exactly (old_p), then AdamW.
# --------------------------------------------------------------------------------------------
def adamw_update(p, g, m, v, lr, t, o):
    """torch.optim.AdamW (single tensor): decay first, bias corrections via step size and denom."""
    b1, b2 = o["beta1"], o["beta2"]
    p = p * (1 - lr * o["weight_decay"])
    m = m * b1 + (1 - b1) * g
    v = v * b2 + (1 - b2) * g * g
    denom = v.sqrt() / math.sqrt(1 - b2 ** t) + o["eps"]
    return p + (-(lr / (1 - b1 ** t))) * (m / denom), m, v


def sam_perturbation(params, grads, o):
    adaptive = bool(o["adaptive"])
    norms = [((p.abs() if adaptive else 1.0) * g).norm(p=2) for p, g in zip(params, grads)]
    scale = o["rho"] / (torch.stack(norms).norm(p=2) + 1e-12)
    return [(p.pow(2) if adaptive else 1.0) * g * scale for p, g in zip(params, grads)]


def sam(params, grads, st, lr, t, o, grad_at):
    e = sam_perturbation(params, grads, o)
    grads2 = grad_at([p + ei for p, ei in zip(params, e)])   # params themselves stay at w
    for i, (p, g) in enumerate(zip(params, grads2)):
        params[i], st["exp_avg"][i], st["exp_avg_sq"][i] = adamw_update(
            p, g, st["exp_avg"][i], st["exp_avg_sq"][i], lr, t, o)


# --------------------------------------------------------------------------------------------
# Schedule-free AdamW (train mode, y stored in the parameters, gradient taken at y).
# --------------------------------------------------------------------------------------------
def schedule_free_init(params):
    return {"z": [p.clone() for p in params], "exp_avg_sq": [torch.zeros_like(p) for p in params],
            "lr_max": -1.0, "weight_sum": 0.0}


def schedule_free_adamw(params, grads, st, lr, t, o, grad_at):
    b1, b2 = o["beta1"], o["beta2"]
    bc2 = 1 - b2 ** t
    lr_max = st["lr_max"] = max(lr, st["lr_max"])
    weight = (t ** o["r"]) * (lr_max ** o["weight_lr_power"])
    weight_sum = st["weight_sum"] = st["weight_sum"] + weight
    ckp1 = weight / weight_sum if weight_sum != 0 else 0.0
    y_coeff = lr * (b1 * (1 - ckp1) - 1)
    for i, (y, g) in enumerate(zip(params, grads)):
        v = st["exp_avg_sq"][i] = st["exp_avg_sq"][i] * b2 + (1 - b2) * g * g
        gn = g / ((v / bc2).sqrt() + o["eps"])
        if o["weight_decay"] != 0:
            gn = gn + o["weight_decay"] * y          # decay evaluated at y
        y = torch.lerp(y, st["z"][i], ckp1)
        params[i] = y + y_coeff * gn
        st["z"][i] = st["z"][i] - lr * gn


def schedule_free_eval_point(params, st, o):
    """x, where the reference's eval() moves the parameters: lerp(y, z, 1 - 1/beta1)."""
    return [torch.lerp(y, z, 1 - 1 / o["beta1"]) for y, z in zip(params, st["z"])]


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------
def train(rule, init, options, lrs, x, y):
    params = [p.clone() for p in make_data()[2]]
    st = init(params)
    losses, snapshots, evals = [], {}, {}
    grad_at = lambda ps: gradients(ps, x, y)[1]
    for t in range(1, STEPS + 1):
        loss, grads = gradients(params, x, y)
        losses.append(loss)
        rule(params, grads, st, lrs[t - 1], t, options, grad_at)
        if t in CHECKPOINTS:
            snapshots[str(t)] = [p.clone() for p in params]
            if rule is schedule_free_adamw:
                evals[str(t)] = schedule_free_eval_point(params, st, options)
    return losses, snapshots, st, evals


def run_case(name, algorithm, reference, rule, init, options, lrs, state_names, x, y):
    losses, snapshots, st, evals = train(rule, init, options, lrs, x, y)
    initial = make_data()[2]
    moved = max((a - b).abs().max().item() for a, b in zip(snapshots["25"], initial))
    assert all(math.isfinite(l) for l in losses), (algorithm, losses)
    assert all(torch.isfinite(p).all() for p in snapshots["25"]), algorithm
    assert moved > 1e-3, (algorithm, moved)
    case = {
        "algorithm": algorithm,
        "reference": reference,
        "options": options,
        "lr": lrs,
        "params": {k: flat(v) for k, v in snapshots.items()},
        "state": {n: flat(st[n]) for n in state_names},
        "losses": losses,
    }
    if evals:
        case["eval_params"] = {k: flat(v) for k, v in evals.items()}
    print(f"{name:20s} loss {losses[0]:.6f} -> {losses[-1]:.6f}  max|dp| {moved:.4f}")
    return case, snapshots, st


def check_sam_against_torch_adamw(options, lrs, x, y, snapshots, st):
    """Re-run SAM with torch.optim.AdamW as the base optimizer; must match the transcription."""
    params = [torch.nn.Parameter(p.clone()) for p in make_data()[2]]
    base = torch.optim.AdamW(params, lr=lrs[0], betas=(options["beta1"], options["beta2"]),
                             eps=options["eps"], weight_decay=options["weight_decay"],
                             foreach=False)
    for t in range(1, STEPS + 1):
        w = [p.detach().clone() for p in params]
        e = sam_perturbation(w, gradients(w, x, y)[1], options)
        g2 = gradients([wi + ei for wi, ei in zip(w, e)], x, y)[1]
        for p, g in zip(params, g2):
            p.grad = g.clone()
        base.param_groups[0]["lr"] = lrs[t - 1]
        base.step()
        if str(t) in snapshots:
            diff = max((p.detach() - q).abs().max().item() for p, q in zip(params, snapshots[str(t)]))
            assert diff < 1e-12, ("SAM/AdamW mismatch", t, diff)
    for name in ("exp_avg", "exp_avg_sq"):
        diff = max((base.state[p][name] - q).abs().max().item() for p, q in zip(params, st[name]))
        assert diff < 1e-12, ("SAM/AdamW state mismatch", name, diff)


def main():
    x, y, _ = make_data()
    cases = {}

    def add(name, algorithm, reference, rule, init, options, lrs, state_names):
        case, snapshots, st = run_case(name, algorithm, reference, rule, init, options, lrs,
                                       state_names, x, y)
        cases[name] = case
        return snapshots, st

    add("lamb", "lamb", "cybertronai/pytorch-lamb/pytorch_lamb/lamb.py", lamb,
        lambda ps: zeros_state(ps, "exp_avg", "exp_avg_sq"),
        {"beta1": 0.9, "beta2": 0.999, "eps": 1e-6, "weight_decay": 0.01},
        cosine_lrs(0.01), ["exp_avg", "exp_avg_sq"])

    add("lion", "lion", "google/automl/lion/lion_pytorch.py", lion,
        lambda ps: zeros_state(ps, "exp_avg"),
        {"beta1": 0.9, "beta2": 0.99, "weight_decay": 0.1},
        cosine_lrs(1e-3), ["exp_avg"])

    adafactor_ref = "pytorch/pytorch/torch/optim/_adafactor.py"
    for name, wd, eps1 in (("adafactor", 0.0, 0.0), ("adafactor_wd", 0.1, 1e-30)):
        add(name, "adafactor", adafactor_ref, adafactor, adafactor_init,
            {"beta2_decay": -0.8, "eps1": eps1, "eps2": 1e-3, "clip_threshold": 1.0,
             "weight_decay": wd},
            cosine_lrs(0.01), ["row_var", "col_var", "variance"])

    add("ademamix", "ademamix", "apple/ml-ademamix/pytorch/ademamix.py", ademamix,
        lambda ps: zeros_state(ps, "exp_avg_fast", "exp_avg_slow", "exp_avg_sq"),
        {"beta1": 0.9, "beta2": 0.999, "beta3": 0.999, "alpha": 5.0, "alpha_beta3_warmup": 10,
         "eps": 1e-8, "weight_decay": 0.01},
        cosine_lrs(1e-3), ["exp_avg_fast", "exp_avg_slow", "exp_avg_sq"])

    for name, nesterov in (("muon", 1), ("muon_heavy_ball", 0)):
        add(name, "muon", "KellerJordan/Muon/muon.py", muon, muon_init,
            {"momentum": 0.95, "nesterov": nesterov, "ns_steps": 5, "weight_decay": 0.01,
             "adam_lr_ratio": 0.015, "adam_beta1": 0.9, "adam_beta2": 0.95, "adam_eps": 1e-10},
            cosine_lrs(0.02), ["momentum_buffer", "exp_avg", "exp_avg_sq"])

    for name, adaptive, rho in (("sam", 0, 0.05), ("sam_adaptive", 1, 0.5)):
        options = {"rho": rho, "adaptive": adaptive, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8,
                   "weight_decay": 0.01}
        lrs = cosine_lrs(0.01)
        snapshots, st = add(name, "sam", "davda54/sam/sam.py", sam,
                            lambda ps: zeros_state(ps, "exp_avg", "exp_avg_sq"),
                            options, lrs, ["exp_avg", "exp_avg_sq"])
        check_sam_against_torch_adamw(options, lrs, x, y, snapshots, st)

    add("schedule_free_adamw", "schedule_free_adamw",
        "facebookresearch/schedule_free/schedulefree/adamw_schedulefree.py",
        schedule_free_adamw, schedule_free_init,
        {"beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.01, "r": 0.0,
         "weight_lr_power": 2.0},
        [0.01 * min(1.0, t / 5.0) for t in range(1, STEPS + 1)], ["z", "exp_avg_sq"])

    record = {"generator": "tools/golden/generate_sota_golden.py"}
    record.update(model_record())
    record["cases"] = cases
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    print("wrote", os.path.relpath(OUT, ROOT))


if __name__ == "__main__":
    main()
