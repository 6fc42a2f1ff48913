#!/usr/bin/python3
"""The same AlgoPerf submission file Pacer runs (-a FILE), driven by plain PyTorch: the speed peer
of bench/python_submission.sh.

A minimal AlgoPerf-style runner in Python: the workload's model in PyTorch (the MLP below and
bench/speed/workload_peers.py's ResNet mirror the C++ models layer for layer), model_fn and loss_fn as
AlgoPerf's PyTorch workloads define them, the parameter container being the nn.Module itself, and
the submission's init_optimizer_state / data_selection / update_params called as AlgoPerf's
submission runner calls them. Batches are random tensors of the workload's shapes (a pool,
cycled), as in workload_peers.py. Timed per step on this process's CPU time, like
`pacer run --clock cpu`.

  /usr/bin/python3 bench/speed/python_submission_peer.py --submission examples/python_submission/nadamw \
      --workload fmnist_mlp --steps 300 --threads 1
  {"workload": "fmnist_mlp", "steps": 300, "seconds_per_step": 0.0009, ...}
"""
import argparse
import collections
import importlib.util
import json
import os
import sys
import time

import torch
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))  # Pacer's algoperf shim: spec, pytorch_utils
sys.path.insert(0, HERE)
from algoperf import spec  # noqa: E402
from workload_peers import ResNet, images_batch  # noqa: E402


class Mlp(nn.Module):
    """src/models/mlp.cpp: 784-128-128-10, ReLU, dropout after each hidden activation."""

    def __init__(self):
        super().__init__()
        self.dense0 = nn.Linear(784, 128)
        self.dense1 = nn.Linear(128, 128)
        self.output = nn.Linear(128, 10)

    def forward(self, x, dropout_rate):
        x = x.flatten(1)
        for layer in (self.dense0, self.dense1):
            x = F.relu(layer(x))
            if dropout_rate > 0 and self.training:
                x = F.dropout(x, dropout_rate, True)
        return self.output(x)


class ResNetWithDropout(ResNet):
    def forward(self, x, dropout_rate=0.0):
        return super().forward(x)


WORKLOADS = {
    "fmnist_mlp": dict(model=Mlp, batch_size=256, step_hint=2000),
    "fmnist_resnet": dict(model=ResNetWithDropout, batch_size=128, step_hint=800),
}


class Workload:
    """What AlgoPerf's PyTorch classification workloads offer a submission."""

    def __init__(self, name, model):
        self.step_hint = WORKLOADS[name]["step_hint"]
        self.model = model
        self.param_shapes = {n: spec.ShapeTuple(p.shape) for n, p in model.named_parameters()}
        self.model_params_types = {n: spec.ParameterType.WEIGHT for n, _ in model.named_parameters()}
        self.loss_type = spec.LossType.SOFTMAX_CROSS_ENTROPY
        self.metrics_logger = None

    def model_fn(self, params, augmented_and_preprocessed_input_batch, model_state, mode, rng, update_batch_norm,
                 dropout_rate=0.0, **_):
        train = mode == spec.ForwardPassMode.TRAIN
        params.train(train)
        with torch.set_grad_enabled(train):
            return params(augmented_and_preprocessed_input_batch["inputs"], dropout_rate), model_state

    def loss_fn(self, label_batch, logits_batch, mask_batch=None, label_smoothing=0.0):
        per_example = F.cross_entropy(logits_batch, label_batch, reduction="none", label_smoothing=label_smoothing)
        return {"summed": per_example.sum(), "n_valid_examples": torch.tensor(float(len(per_example))),
                "per_example": per_example}


def load(path):
    path = os.path.join(path, "submission.py") if os.path.isdir(path) else path
    module_spec = importlib.util.spec_from_file_location("submission", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submission", required=True)
    parser.add_argument("--workload", choices=sorted(WORKLOADS), required=True)
    parser.add_argument("--hparams", required=True, help="a JSON point")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    submission = load(args.submission)
    w = WORKLOADS[args.workload]
    model = w["model"]()
    workload = Workload(args.workload, model)
    with open(args.hparams) as f:
        point = json.load(f)
    hyperparameters = collections.namedtuple("Hyperparameters", point)(**point)
    gen = torch.Generator().manual_seed(1)
    pool = [images_batch(w["batch_size"], gen) for _ in range(8)]
    def batches():
        i = 0
        while True:
            x, y = pool[i % len(pool)]
            i += 1
            yield {"inputs": x, "targets": y}

    queue = batches()
    rng = [0, 0]
    state = submission.init_optimizer_state(workload, model, None, hyperparameters, rng)
    types = workload.model_params_types

    def step(global_step):
        nonlocal state
        batch = submission.data_selection(workload, queue, state, model, None, hyperparameters, global_step, rng)
        state, _, _ = submission.update_params(
            workload=workload, current_param_container=model, current_params_types=types, model_state=None,
            hyperparameters=hyperparameters, batch=batch, loss_type=workload.loss_type, optimizer_state=state,
            eval_results=[], global_step=global_step, rng=rng)

    warmup = min(20, args.steps // 5)
    for s in range(warmup):
        step(s)
    start = time.process_time()
    for s in range(warmup, warmup + args.steps):
        step(s)
    seconds = time.process_time() - start
    print(json.dumps({"workload": args.workload, "steps": args.steps, "threads": args.threads,
                      "seconds_per_step": seconds / args.steps, "clock": "cpu (process_time)"}))


if __name__ == "__main__":
    main()
