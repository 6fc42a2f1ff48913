#!/usr/bin/python3
"""Golden values for the preconditioned optimizers Distributed Shampoo and SOAP.

Run with Debian's python (torch 1.13, float64):   /usr/bin/python3 tools/golden/generate_preconditioner_golden.py
Writes tests/golden/preconditioned_optimizers.json: the model of golden_model.py, and per case the options,
the 25 learning rates, the loss before each step, the parameters after steps 1, 2, 5, 10, 20, 25 and a few
states after step 25. Each rule below is an independent float64 transcription (plain tensor ops, one state
per parameter tensor / block) of its reference; the C++ implementation must follow this SPEC.

Learning rate handed to the rule at step t = 1..25 (peak per case):
    lr_t = peak * min(1, t/3) * (0.55 + 0.45*cos(pi*(t-1)/25))
Every step: loss and full-batch gradient at the current parameters (golden_model.gradients), then the update.
Notation: lerp(a, b, w) = a + w*(b - a) (torch.lerp; all weights here are < 0.5). ||.|| = Frobenius norm.
C_i(g) = contraction of g with itself over every dim except i (2-D g: C_0 = g g^T, C_1 = g^T g; 1-D g: g g^T).
eigh = torch.linalg.eigh / at::linalg_eigh (ascending eigenvalues, LAPACK syevd), qr = linalg_qr (reduced).

===================================== SHAMPOO (algorithm "shampoo") =====================================
Reference: github.com/facebookresearch/optimizers @ b7888a99c96141995bd56bebb64684ad8b155476 (2025-08-05, the
last upstream commit whose DistributedShampoo still takes momentum / use_nesterov / use_merge_dims /
AdamGraftingConfig): distributed_shampoo/distributed_shampoo.py, shampoo_types.py,
preconditioner/shampoo_preconditioner_list.py, preconditioner/matrix_functions{,_types}.py,
distributor/shampoo_distributor.py, utils/shampoo_utils.py (merge_small_dims, multi_dim_split).
Configuration: DistributedShampoo(lr, betas=(beta1, beta2), beta3=-1 (=beta1), epsilon, momentum, dampening=0,
weight_decay, max_preconditioner_dim, precondition_frequency, start_preconditioning_step, use_nesterov,
use_bias_correction=1, use_decoupled_weight_decay=1, grafting_config=AdamGraftingConfig(grafting_beta2,
grafting_epsilon), use_merge_dims=1, distributed_config=None (single device), preconditioner_config=
DefaultShampooConfig = RootInvShampooPreconditionerConfig(EigenConfig(): eigh, PerturbationConfig(
perturb_before_computation=True)), factor matrices in the parameter dtype (reference default float32)).
Setup, per parameter tensor (D = max_preconditioner_dim):
 S1 merge_small_dims(shape, threshold = D if merge_dims else 0): drop size-1 dims (all ones -> (1,)); walk the
    remaining dims from LAST to FIRST keeping a group product p: if p*d <= threshold merge d into the group,
    else start a new group with d; reverse. conv.weight [4,2,3,3] -> [8,9]; fc/head weights and 1-D unchanged.
 S2 Blocks: view the tensor (row-major) as the merged shape; split dim 0 into chunks of D (last one shorter), then
    split dim 1 of every piece, and so on (torch.split per dim, order kept). fc.weight [6,36] -> [6,0:16],
    [6,16:32], [6,32:36]; every other tensor is one block. All state is per block; updates write through.
 S3 Per block of order k with dims n_0..n_{k-1}: F_i = 0 (n_i x n_i), X_i = I, root r = 2k (1-D blocks r=2,
    2-D blocks r=4; default inverse exponent 1/(2k)); m = 0, v = 0, b = 0 (block shape). Step count t = 0.
Step: t = t + 1 (all blocks share t), then per block with gradient block g and parameter block w:
  1. Factors: for each i: F_i = beta2*F_i + (1-beta2)*C_i(g) if beta2 != 1, else F_i = F_i + C_i(g).
  2. Grafting second moment: v = grafting_beta2*v + (1-grafting_beta2)*g*g.
  3. bc2 = 1 - beta2^t if use_bias_correction and beta2 < 1, else 1.
  4. If (t % precondition_frequency == 0 and t > start) or t == start (start = start_preconditioning_step),
     for each i: A = F_i/bc2 + epsilon*I; (lam, Q) = eigh(A); if min(lam) < epsilon:
     lam = (lam - min(lam)) + epsilon; X_i = Q diag(lam^(-1/r)) Q^T. (Nothing else: no clamp, no rank cut.)
     X_i is a spectral function of A, so eigenvector signs/order/degenerate bases do not matter.
  5. Filtered gradient: m = lerp(m, g, 1-beta1); mhat = m / (1 - beta1^t) if use_bias_correction else m
     (reference: 1 - beta3*beta1^(t-1) with beta3 = beta1). If beta1 == 0: mhat = g, no m.
  6. Adam grafting direction: a = mhat / (sqrt(v / (1 - grafting_beta2^t)) + grafting_epsilon).
  7. If t < start: d = a (Adam; the factors still accumulate in step 1). Else s = mhat x_0 X_0 ... x_{k-1}
     X_{k-1} (mode products; 2-D: s = X_0 mhat X_1, 1-D: s = X_0 mhat) and d = s * (||a|| / (||s|| + 1e-16)).
  8. Decoupled weight decay (decoupled_weight_decay=1): d = d + weight_decay * w (w before this step's update).
  9. Momentum (dampening 0), only if momentum != 0: b = momentum*b + d; d = d + momentum*b if nesterov else b.
 10. w = w + (-lr_t) * d.
Not replicated: the reference rounds lr to float32 (torch.tensor(lr, dtype=torch.float)); here lr is float64.

======================================= SOAP (algorithm "soap") =========================================
Reference: github.com/nikhilvyas/SOAP @ a1e553530fde97d0e6b307d7c82ac6d38b072340, soap.py, with its defaults
merge_dims=False, precondition_1d=False, normalize_grads=False, data_format="channels_first", correct_bias=1.
Per parameter tensor p (own state, own step count t = 0); sb = shampoo_beta if shampoo_beta >= 0 else beta2.
Factors: 1-D tensors have none. For dim j of a >=2-D tensor: GG_j = 0 (n_j x n_j) if n_j <= max_precond_dim,
else none (that dim is never rotated). exp_avg = exp_avg_sq = 0 (shape of p). Q unset.
project(x): for each dim j with a factor, mode-j product with Q_j^T (2-D, both: Q_0^T x Q_1; only dim 0: Q_0^T x).
project_back(x): the same with Q_j (2-D: Q_0 x Q_1^T). Dims without a factor are left as they are.
Optimizer step s with gradient g and lr_s:
  A. First step (Q unset): GG_j = lerp(GG_j, C_j(g), 1-sb); Q_j = eigenvectors of eigh(GG_j + 1e-30*I) with
     the columns reversed (descending eigenvalues). NO parameter update, no weight decay, t stays 0.
  B. Later steps:
   1. gp = project(g).   2. t = t + 1.
   3. exp_avg = beta1*exp_avg + (1-beta1)*gp;  exp_avg_sq = beta2*exp_avg_sq + (1-beta2)*gp*gp.
   4. step_size = lr_s * sqrt(1 - beta2^t) / (1 - beta1^t) if correct_bias else lr_s.
   5. p = p + (-step_size) * project_back(exp_avg / (sqrt(exp_avg_sq) + eps)).
   6. If weight_decay > 0: p = p + (-lr_s*weight_decay) * p (after 5; lr_s, not step_size).
   7. Preconditioner update with the same g: (a) exp_avg = project_back(exp_avg) (current Q);
      (b) GG_j = lerp(GG_j, C_j(g), 1-sb); (c) if t % precondition_frequency == 0, for each j with a factor in
      increasing j: e = diag(Q_j^T GG_j Q_j); pi = argsort(e, descending); exp_avg_sq = exp_avg_sq.index_select
      (j, pi); Q_j = qr(GG_j @ Q_j[:, pi]).Q; (d) exp_avg = project(exp_avg) (possibly new Q).
  exp_avg therefore lives in the eigenbasis between steps; exp_avg_sq is only permuted, never rotated.
Not replicated: the reference casts GG and Q to float32 for eigh and qr; here they stay float64.
Signs: flipping a column of Q_j (eigh or QR sign convention) flips the same slice of gp, exp_avg and of
exp_avg/denom and project_back flips it back; exp_avg_sq holds squares and e is sign-free, so parameters and
exp_avg_sq are invariant to eigenvector signs; at::linalg_eigh/qr conventions need not be matched.
Ordering is fixed by eigh (ascending, then reversed) and the descending argsort (no ties occur here).
NOT invariant: the basis eigh picks inside a DEGENERATE eigenspace. With this batch of 4 the step-1 factors
fc.weight 6x6 (rank <= 4), fc.weight 36x36 (rank <= 4) and head.weight 6x6 (rank <= 3) are singular, eigh
returns a rounding-noise basis for their null spaces, and Adam's per-coordinate normalisation of the later
(drifted) gradient components in those directions makes the parameters depend on it at the 1e-2 level.
Hence case "soap" uses max_precond_dim = 5 (rotates every conv.weight dim and head.weight's 3-side only; all
those factors are full rank): well posed. "soap_big_dim" (max_precond_dim 10000, everything rotated) is kept
as specified but is ILL POSED after step 2: only its checkpoints 1 and 2 (and losses 1..3) are reproducible.

Per case the JSON carries "sensitivity" = per checkpoint, the largest max|dp|/max|p| seen over 3 re-runs in
which every eigh/QR input A gets a symmetric perturbation of 1e-15*max|A| (a few ulps), and "well_posed" =
all of them < 1e-6 ("peak_lr", "sensitivity" and "well_posed" are extra keys beside the required ones).
Measured: "shampoo" <= 3e-8 (fc.bias and gain have rank-5 6x6 factors at the start step 5, so their null
direction gets (epsilon)^(-1/2) = 1e6 until the refresh at step 10), "shampoo_sum_nesterov" <= 3e-11,
"soap" <= 2e-15, "soap_big_dim" 5e-10 at checkpoint 2 and ~1e-2 from checkpoint 5 on. Compare the C++
parameters at a tolerance well above the sensitivity (e.g. 1e-6 relative for "shampoo", 1e-9 for the
others) and skip ill-posed checkpoints.
Cross-check (not part of this script): the reference code itself, run in float64 on this model (Shampoo
with lr and factor matrices in float64, SOAP with its float32 casts changed to float64), agrees with these
values to 9e-10 ("shampoo"), 2e-12 ("shampoo_sum_nesterov") and 1e-16 ("soap") relative in the parameters;
on "soap_big_dim" it drifts to 1.6e-3 after step 2, as the sensitivity predicts.

Options beyond the upstream commit, from the AlgoPerf v0.6 submission's own copy (default 0 = upstream):
  nadam: step 5 uses mhat = (beta1*m + (1-beta1)*g) / (1 - beta1^t);  sgd_grafting: step 6 a = mhat (no v kept);
  ema_momentum: step 9 b = momentum*b + (1-momentum)*d, Nesterov d = (1-momentum)*d + momentum*b;
  inverse_root_override: r in step 4 is this number for every block when > 0.
Cases: "shampoo" (peak lr 0.01) beta1 .9, beta2 .999, epsilon 1e-12, no momentum, weight_decay .01, blocks of 16,
precondition_frequency 5, start 5, grafting Adam(.999, 1e-8). "shampoo_sum_nesterov" (0.01): same but beta2 1
(plain sum, no factor bias correction), momentum .5 + Nesterov, epsilon 1e-10, frequency 4, start 8.
"shampoo_v06_options" (0.01): "shampoo" with nadam, EMA Nesterov momentum 0.5, inverse root override 2,
frequency 4, start 4. "shampoo_sgd_grafting" (0.05): beta1 0, SGD grafting, EMA Nesterov momentum 0.9, epsilon 1e-8.
"soap" (3e-3): betas .95/.95, shampoo_beta -1, eps 1e-8, weight_decay .01, frequency 3, max_precond_dim 5.
"soap_big_dim" (3e-3): the same with max_precond_dim 10000 and frequency 2.

State recorded after step 25 (per tensor, row-major, null where absent):
 shampoo: factor0_block0 = F_0 of the tensor's first block (raw EMA/sum, before bias correction);
          inv_root0_block0 = X_0 of that block (last computed); filtered_grad = m; graft_exp_avg_sq = v;
          momentum = b (m, v, b assembled from the blocks into the tensor's shape).
 soap:    exp_avg_sq (eigenbasis coordinates, tensor shape); exp_avg_param_space = project_back(exp_avg)
          (sign-free); GG0 = GG_0 (null for 1-D tensors / when dim 0 > max_precond_dim).
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

from golden_model import CHECKPOINTS, STEPS, flat, gradients, make_data, model_record  # noqa: E402

torch.set_default_dtype(torch.float64)
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT_PATH = os.path.join(ROOT, "tests", "golden", "preconditioned_optimizers.json")
SHAMPOO_REF = ("facebookresearch/optimizers@b7888a99c96141995bd56bebb64684ad8b155476 distributed_shampoo "
               "(DefaultShampooConfig root-inverse via eigh, AdamGraftingConfig, single device)")
SOAP_REF = "nikhilvyas/SOAP@a1e553530fde97d0e6b307d7c82ac6d38b072340 soap.py"

# Symmetric perturbation added to every eigh / QR input in the sensitivity re-run (0 for the golden run).
PERTURB = {"rel": 0.0, "gen": None}


def perturbed(a):
    if PERTURB["rel"] == 0.0:
        return a
    noise = torch.randn(a.shape, generator=PERTURB["gen"])
    return a + PERTURB["rel"] * a.abs().max() * (noise + noise.T) / 2


def lr_schedule(peak):
    return [peak * min(1.0, t / 3) * (0.55 + 0.45 * math.cos(math.pi * (t - 1) / 25)) for t in range(1, STEPS + 1)]


def self_contraction(g, i):
    """C_i(g): g contracted with itself over every dim except i -> [n_i, n_i]."""
    others = [d for d in range(g.dim()) if d != i]
    return torch.tensordot(g, g, dims=(others, others))


def mode_product(x, mats, transpose):
    """x multiplied along each dim j by mats[j] (M^T if transpose), mats[j] None = identity on that dim."""
    for j, m in enumerate(mats):
        if m is not None:
            # contract dim j of x with the row (M^T x) or column (M x) index of m, then put the result back at j
            x = torch.movedim(torch.tensordot(x, m, dims=([j], [0 if transpose else 1])), -1, j)
    return x


# ------------------------------------------------ Shampoo ------------------------------------------------
def merge_small_dims(shape, threshold):
    dims = [d for d in reversed(shape) if d != 1] or [1]
    merged = [dims[0]]
    for d in dims[1:]:
        if merged[-1] * d <= threshold:
            merged[-1] *= d
        else:
            merged.append(d)
    return list(reversed(merged))


def split_blocks(t, size):
    """Views of t split into chunks of `size` along dim 0, then dim 1 of each piece, ..."""
    pieces = [t]
    for dim in range(t.dim()):
        pieces = [q for p in pieces for q in torch.split(p, size, dim=dim)]
    return pieces


def inverse_root(factor, bc2, root, eps):
    a = factor / bc2
    a = perturbed(a + eps * torch.eye(a.shape[0]))
    lam, q = torch.linalg.eigh(a)
    lam_min = lam.min()
    if lam_min < eps:  # PerturbationConfig: shift the spectrum so its minimum is exactly eps
        lam = (lam - lam_min) + eps
    return (q * lam.pow(-1.0 / root).unsqueeze(0)) @ q.T


class ShampooBlock:
    def __init__(self, w):
        self.w = w  # a view into the parameter
        self.root = 2 * w.dim()
        self.factors = [torch.zeros(n, n) for n in w.shape]
        self.inv_roots = [torch.eye(n) for n in w.shape]
        self.m = torch.zeros_like(w)
        self.v = torch.zeros_like(w)
        self.b = torch.zeros_like(w)


def shampoo_run(o, lrs):
    x, y, params = make_data()
    shapes = [merge_small_dims(tuple(p.shape), o["max_preconditioner_dim"] if o["merge_dims"] else 0) for p in params]
    blocks = [[ShampooBlock(w) for w in split_blocks(p.view(s), o["max_preconditioner_dim"])]
              for p, s in zip(params, shapes)]
    beta1, beta2, start = o["beta1"], o["beta2"], o["start_preconditioning_step"]
    losses, snaps = [], {}
    for t in range(1, STEPS + 1):
        loss, grads = gradients(params, x, y)
        losses.append(loss)
        lr = lrs[t - 1]
        refresh = (t % o["precondition_frequency"] == 0 and t > start) or t == start
        bc2 = 1.0 - beta2 ** t if (o["use_bias_correction"] and beta2 < 1.0) else 1.0
        bc1 = 1.0 - beta1 ** t if o["use_bias_correction"] else 1.0
        graft_bc2 = 1.0 - o["grafting_beta2"] ** t
        for p_blocks, g_full, s in zip(blocks, grads, shapes):
            for blk, g in zip(p_blocks, split_blocks(g_full.reshape(s), o["max_preconditioner_dim"])):
                for i in range(g.dim()):  # 1. Kronecker factors
                    c = self_contraction(g, i)
                    blk.factors[i] = beta2 * blk.factors[i] + (1 - beta2) * c if beta2 != 1.0 else blk.factors[i] + c
                blk.v = o["grafting_beta2"] * blk.v + (1 - o["grafting_beta2"]) * g * g  # 2. Adam grafting state
                if refresh:  # 4. amortized inverse roots
                    root = o.get("inverse_root_override", 0) or blk.root
                    blk.inv_roots = [inverse_root(f, bc2, root, o["epsilon"]) for f in blk.factors]
                if beta1 != 0.0:  # 5. filtered gradient
                    blk.m = torch.lerp(blk.m, g, 1 - beta1)
                    # v0.6 submission's copy (use_nadam): look ahead one step of the EMA
                    mhat = (beta1 * blk.m + (1 - beta1) * g if o.get("nadam", 0) else blk.m) / bc1
                else:
                    mhat = g
                if o.get("sgd_grafting", 0):  # 6. (v0.6 point 3: SGD grafting, the step norm of mhat itself)
                    a = mhat
                else:
                    a = mhat / ((blk.v / graft_bc2).sqrt() + o["grafting_epsilon"])
                if t < start:  # 7. grafting method before the start step
                    d = a
                else:
                    s_dir = mode_product(mhat, blk.inv_roots, transpose=True)  # X symmetric
                    d = s_dir * (a.norm() / (s_dir.norm() + 1e-16))
                if o["weight_decay"] != 0.0 and o["decoupled_weight_decay"]:  # 8.
                    d = d + o["weight_decay"] * blk.w
                if o["momentum"] != 0.0:  # 9. (v0.6 copy's use_ema_momentum: dampened by 1 - momentum)
                    damp = 1.0 - o["momentum"] if o.get("ema_momentum", 0) else 1.0
                    blk.b = o["momentum"] * blk.b + damp * d
                    d = damp * d + o["momentum"] * blk.b if o["nesterov"] else blk.b.clone()
                blk.w.add_(-lr * d)  # 10. (writes through the view)
        if t in CHECKPOINTS:
            snaps[str(t)] = flat(params)

    def assemble(attr, p, s, p_blocks):
        full = torch.zeros(s)
        for view, blk in zip(split_blocks(full, o["max_preconditioner_dim"]), p_blocks):
            view.copy_(getattr(blk, attr))
        return full.view(p.shape)

    state = {
        "factor0_block0": flat([pb[0].factors[0] for pb in blocks]),
        "inv_root0_block0": flat([pb[0].inv_roots[0] for pb in blocks]),
        "filtered_grad": flat([None if beta1 == 0.0 else assemble("m", p, s, pb)
                               for p, s, pb in zip(params, shapes, blocks)]),
        "graft_exp_avg_sq": flat([None if o.get("sgd_grafting", 0) else assemble("v", p, s, pb)
                                  for p, s, pb in zip(params, shapes, blocks)]),
        "momentum": flat([assemble("b", p, s, pb) if o["momentum"] != 0.0 else None
                          for p, s, pb in zip(params, shapes, blocks)]),
    }
    return losses, snaps, state


# -------------------------------------------------- SOAP --------------------------------------------------
class SoapState:
    def __init__(self, p, max_dim):
        self.t = 0
        self.exp_avg = torch.zeros_like(p)
        self.exp_avg_sq = torch.zeros_like(p)
        self.gg = [torch.zeros(n, n) if n <= max_dim else None for n in p.shape] if p.dim() >= 2 else [None]
        self.q = None

    def project(self, x):
        return mode_product(x, self.q, transpose=True)

    def project_back(self, x):
        return mode_product(x, self.q, transpose=False)

    def update_factors(self, g, sb):
        for j, f in enumerate(self.gg):
            if f is not None:
                self.gg[j] = torch.lerp(f, self_contraction(g, j), 1 - sb)

    def eigenbases(self):
        # eigh ascending -> reverse columns (descending eigenvalues)
        self.q = [None if f is None else torch.flip(torch.linalg.eigh(perturbed(f + 1e-30 * torch.eye(f.shape[0])))[1], [1])
                  for f in self.gg]

    def qr_refresh(self):
        for j, (f, q) in enumerate(zip(self.gg, self.q)):
            if f is None:
                continue
            est = torch.diag(q.T @ f @ q)
            order = torch.argsort(est, descending=True)
            assert torch.unique(est).numel() == est.numel(), "tie in the eigenvalue estimates"
            self.exp_avg_sq = self.exp_avg_sq.index_select(j, order)
            self.q[j] = torch.linalg.qr(perturbed(f) @ q[:, order])[0]


def soap_run(o, lrs):
    x, y, params = make_data()
    beta1, beta2 = o["beta1"], o["beta2"]
    sb = o["shampoo_beta"] if o["shampoo_beta"] >= 0 else beta2
    states = [SoapState(p, o["max_precond_dim"]) for p in params]
    losses, snaps = [], {}
    for s_idx in range(1, STEPS + 1):
        loss, grads = gradients(params, x, y)
        losses.append(loss)
        lr = lrs[s_idx - 1]
        for p, g, st in zip(params, grads, states):
            if st.q is None:  # A. first step: build the eigenbases only, the parameter does not move
                st.update_factors(g, sb)
                st.eigenbases()
                continue
            gp = st.project(g)  # B.1
            st.t += 1
            st.exp_avg = beta1 * st.exp_avg + (1 - beta1) * gp  # B.3
            st.exp_avg_sq = beta2 * st.exp_avg_sq + (1 - beta2) * gp * gp
            step_size = lr
            if o["correct_bias"]:  # B.4
                step_size = lr * math.sqrt(1.0 - beta2 ** st.t) / (1.0 - beta1 ** st.t)
            p.add_(-step_size * st.project_back(st.exp_avg / (st.exp_avg_sq.sqrt() + o["eps"])))  # B.5
            if o["weight_decay"] > 0.0:  # B.6
                p.add_(-lr * o["weight_decay"] * p)
            st.exp_avg = st.project_back(st.exp_avg)  # B.7 (a)
            st.update_factors(g, sb)  # (b)
            if st.t % o["precondition_frequency"] == 0:  # (c)
                st.qr_refresh()
            st.exp_avg = st.project(st.exp_avg)  # (d)
        if s_idx in CHECKPOINTS:
            snaps[str(s_idx)] = flat(params)
    state = {
        "exp_avg_sq": flat([st.exp_avg_sq for st in states]),
        "exp_avg_param_space": flat([st.project_back(st.exp_avg) for st in states]),
        "GG0": flat([st.gg[0] for st in states]),
    }
    return losses, snaps, state


# -------------------------------------------------- cases --------------------------------------------------
SHAMPOO_BASE = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-12, "momentum": 0.0, "nesterov": 0,
                "weight_decay": 0.01, "decoupled_weight_decay": 1, "max_preconditioner_dim": 16,
                "precondition_frequency": 5, "start_preconditioning_step": 5, "use_bias_correction": 1,
                "grafting_beta2": 0.999, "grafting_epsilon": 1e-8, "merge_dims": 1}
SOAP_BASE = {"beta1": 0.95, "beta2": 0.95, "shampoo_beta": -1.0, "eps": 1e-8, "weight_decay": 0.01,
             "precondition_frequency": 3, "max_precond_dim": 5, "correct_bias": 1}
CASES = {
    "shampoo": ("shampoo", 0.01, SHAMPOO_BASE),
    "shampoo_sum_nesterov": ("shampoo", 0.01, dict(SHAMPOO_BASE, beta2=1.0, momentum=0.5, nesterov=1, epsilon=1e-10,
                                                   precondition_frequency=4, start_preconditioning_step=8)),
    # The options of the AlgoPerf v0.6 submission's own Shampoo copy (use_nadam, use_ema_momentum,
    # inv_root_override; SGD grafting as its third search-space point), beside the upstream semantics.
    "shampoo_v06_options": ("shampoo", 0.01, dict(SHAMPOO_BASE, nadam=1, momentum=0.5, nesterov=1, ema_momentum=1,
                                                  inverse_root_override=2, precondition_frequency=4, epsilon=1e-8,
                                                  start_preconditioning_step=4)),
    "shampoo_sgd_grafting": ("shampoo", 0.05, dict(SHAMPOO_BASE, beta1=0.0, sgd_grafting=1, momentum=0.9, nesterov=1,
                                                   ema_momentum=1, epsilon=1e-8)),
    "soap": ("soap", 3e-3, SOAP_BASE),
    "soap_big_dim": ("soap", 3e-3, dict(SOAP_BASE, max_precond_dim=10000, precondition_frequency=2)),
}


def run_case(algorithm, options, lrs):
    return (shampoo_run if algorithm == "shampoo" else soap_run)(options, lrs)


def sensitivity(algorithm, options, lrs, snaps):
    """Per checkpoint: max over 3 seeds of max|dp| / max|p| when every eigh/QR input is perturbed by 1e-15."""
    worst = {step: 0.0 for step in snaps}
    for seed in range(3):
        PERTURB.update(rel=1e-15, gen=torch.Generator().manual_seed(seed))
        try:
            _, other, _ = run_case(algorithm, options, lrs)
        finally:
            PERTURB.update(rel=0.0, gen=None)
        for step, tensors in snaps.items():
            a = torch.tensor([v for t in tensors for v in t])
            b = torch.tensor([v for t in other[step] for v in t])
            worst[step] = max(worst[step], float((a - b).abs().max() / a.abs().max()))
    return worst


def check(name, losses, snaps, initial):
    assert all(math.isfinite(v) for v in losses), name
    final = snaps[str(STEPS)]
    assert all(math.isfinite(v) for t in final for v in t), name
    moved = max(abs(a - b) for t0, t1 in zip(initial, final) for a, b in zip(t0, t1))
    assert moved > 1e-4, f"{name}: parameters did not move"
    print(f"{name:22s} loss {losses[0]:.6f} -> {losses[-1]:.6f}   max |dp| {moved:.3e}")


def dump(value, indent=0):
    """Objects indented, numeric lists on one line, floats via repr (round-trip exact)."""
    pad = "  " * indent
    if isinstance(value, dict):
        items = [f"{pad}  {json.dumps(k)}: {dump(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return "[\n" + ",\n".join(f"{pad}  {dump(v, indent + 1)}" for v in value) + "\n" + pad + "]"
    if isinstance(value, list):
        return "[" + ", ".join(dump(v) for v in value) + "]"
    if isinstance(value, float):
        assert math.isfinite(value)
        return repr(value)
    return json.dumps(value)


def main():
    torch.set_num_threads(1)
    initial = flat(make_data()[2])
    out = {"generator": "tools/golden/generate_preconditioner_golden.py"}
    out.update(model_record())
    out["cases"] = {}
    for name, (algorithm, peak, options) in CASES.items():
        lrs = lr_schedule(peak)
        losses, snaps, state = run_case(algorithm, options, lrs)
        check(name, losses, snaps, initial)
        sens = sensitivity(algorithm, options, lrs, snaps)
        print(f"{'':22s} sensitivity per checkpoint: " + " ".join(f"{k}:{v:.1e}" for k, v in sens.items()))
        out["cases"][name] = {
            "algorithm": algorithm,
            "reference": SHAMPOO_REF if algorithm == "shampoo" else SOAP_REF,
            "options": {k: float(v) if isinstance(v, float) else int(v) for k, v in options.items()},
            "peak_lr": peak,
            "sensitivity": sens,
            "well_posed": int(max(sens.values()) < 1e-6),
            "lr": lrs,
            "params": snaps,
            "losses": losses,
            "state": state,
        }
    os.makedirs(os.path.dirname(OUT_PATH), exist_ok=True)
    with open(OUT_PATH, "w") as f:
        f.write(dump(out) + "\n")
    with open(OUT_PATH) as f:
        assert json.load(f) == json.loads(json.dumps(out)), "JSON round trip changed a value"
    print(f"wrote {os.path.relpath(OUT_PATH, ROOT)}")


if __name__ == "__main__":
    main()
