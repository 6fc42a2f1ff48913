#!/usr/bin/python3
"""The fmnist_mlp training loop in PyTorch Python: the peer that bench/speed/step_time.sh measures
`pacer run` against. Same data (Fashion-MNIST, first 50,000 training images, normalized with
their mean and std), same model (784-128-128-10, ReLU), batch 256 drawn by index_select from a
per-epoch permutation, mean cross-entropy, and NAdamW written like the AlgoPerf PyTorch
reference (a torch.optim.Optimizer subclass updating tensor by tensor), under pacer's default
nadamw hyperparameters and warmup + cosine schedule (via LambdaLR).

  /usr/bin/python3 bench/speed/python_loop.py --steps 2000 --threads 1
  {"impl": "pytorch_python", "threads": 1, "steps": 2000, ..., "ms_per_step": 1.23}
"""
import argparse
import gzip
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

LR, BETA1, BETA2, EPS, WEIGHT_DECAY = 0.002, 0.9, 0.999, 1e-8, 0.01
STEP_HINT, WARMUP_STEPS, BATCH_SIZE, TRAIN_EXAMPLES = 2000, 100, 256, 50000


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_train(data_dir):
    images = read_idx(os.path.join(data_dir, "train-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(data_dir, "train-labels-idx1-ubyte.gz"))
    x = torch.from_numpy(images[:TRAIN_EXAMPLES].astype(np.float32) / 255.0).reshape(-1, 784)
    mean, std = x.mean().item(), x.std().item()
    x = ((x - mean) / std).contiguous()
    y = torch.from_numpy(labels[:TRAIN_EXAMPLES].astype(np.int64))
    return x, y


class NAdamW(torch.optim.Optimizer):
    """NAdamW as in the AlgoPerf PyTorch baseline: AdamW with a Nesterov-style first moment
    in the update (the moment is advanced once more for the step, then restored)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if not state:
                    state["step"] = torch.tensor(0.0)
                    state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                    state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
                exp_avg, exp_avg_sq, step_t = state["exp_avg"], state["exp_avg_sq"], state["step"]
                step_t += 1
                p.mul_(1 - lr * wd)
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                # Nesterov look-ahead in place; undone after the parameter update.
                exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                step = step_t.item()
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                denom = (exp_avg_sq.sqrt() / math.sqrt(bias_correction2)).add_(eps)
                p.addcdiv_(exp_avg, denom, value=-lr / bias_correction1)
                exp_avg.sub_(grad, alpha=1 - beta1).div_(beta1)


def lr_factor(step):
    if step < WARMUP_STEPS:
        return step / WARMUP_STEPS
    t, decay = step - WARMUP_STEPS, STEP_HINT - WARMUP_STEPS
    return 0.0 if t >= decay else 0.5 * (1.0 + math.cos(math.pi * t / decay))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=50, help="untimed steps before the timed ones")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data-dir", default=os.environ.get("PACER_DATA_DIR") or "/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    x_train, y_train = load_train(args.data_dir)
    n = x_train.shape[0]
    batches_per_epoch = n // BATCH_SIZE

    torch.manual_seed(args.seed)
    model = nn.Sequential(nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))
    optimizer = NAdamW(model.parameters(), lr=LR, betas=(BETA1, BETA2), eps=EPS, weight_decay=WEIGHT_DECAY)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor)
    model.train()

    order = None
    loss = None

    def train_step(step):
        nonlocal order, loss
        within = step % batches_per_epoch
        if within == 0:
            order = torch.randperm(n)
        idx = order[within * BATCH_SIZE:(within + 1) * BATCH_SIZE]
        x = x_train.index_select(0, idx)
        y = y_train.index_select(0, idx)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()

    for step in range(args.warmup):
        train_step(step)
    start, cpu_start = time.perf_counter(), time.process_time()
    for step in range(args.warmup, args.warmup + args.steps):
        train_step(step)
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    print(json.dumps({
        "impl": "pytorch_python", "torch": torch.__version__, "threads": torch.get_num_threads(),
        "warmup_steps": args.warmup, "steps": args.steps, "seconds": round(seconds, 6),
        "ms_per_step": round(1000.0 * seconds / args.steps, 6), "steps_per_s": round(args.steps / seconds, 3),
        "cpu_ms_per_step": round(1000.0 * cpu_seconds / args.steps, 6),
        "final_loss": round(loss.item(), 6)}))


if __name__ == "__main__":
    main()
