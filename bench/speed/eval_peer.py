#!/usr/bin/python3
"""The fmnist_cnn eval in PyTorch Python: the peer bench/speed/eval_speed.sh measures `pacer run`'s eval
against. Same data (Fashion-MNIST from the Debian package: train-eval = the first 10,000 training
images, validation = official training images 50,000-59,999, test = t10k; normalized with the
training mean and std), same model (conv5x5/32, pool, conv5x5/64, pool, dense 1024, dense 10),
same protocol per split: forward in batches under torch.inference_mode, summed cross-entropy and
correct predictions read back per batch (as Pacer's evaluate does), one untimed warm-up eval, then
--reps timed evals of all three splits.

  /usr/bin/python3 bench/speed/eval_peer.py --threads 2 --batch-size 1000 --reps 3
  {"impl": "pytorch_python", "threads": 2, "batch_size": 1000, "images": 30000, "seconds": [..], ...}
"""
import argparse
import json
import os
import time

import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from python_loop import read_idx  # noqa: E402  (the IDX reader of the training-loop peer)


def load_splits(data_dir):
    def pair(prefix):
        x = read_idx(os.path.join(data_dir, prefix + "-images-idx3-ubyte.gz")).astype(np.float32) / 255.0
        y = read_idx(os.path.join(data_dir, prefix + "-labels-idx1-ubyte.gz")).astype(np.int64)
        return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y)
    train_x, train_y = pair("train")
    test_x, test_y = pair("t10k")
    mean, std = train_x[:50000].mean().item(), train_x[:50000].std().item()
    norm = lambda x: ((x - mean) / std).contiguous()  # noqa: E731
    return {"train": (norm(train_x[:10000]), train_y[:10000]),
            "validation": (norm(train_x[50000:]), train_y[50000:]),
            "test": (norm(test_x), test_y)}


class SimpleCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 5, padding=2)
        self.conv2 = nn.Conv2d(32, 64, 5, padding=2)
        self.dense = nn.Linear(64 * 7 * 7, 1024)
        self.output = nn.Linear(1024, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.output(F.relu(self.dense(x.flatten(1))))


def evaluate(model, x, y, batch_size):
    loss_sum, correct = 0.0, 0
    for start in range(0, x.shape[0], batch_size):
        logits = model(x[start:start + batch_size])
        target = y[start:start + batch_size]
        loss_sum += F.cross_entropy(logits, target, reduction="sum").item()
        correct += (logits.argmax(1) == target).sum().item()
    return correct / x.shape[0], loss_sum / x.shape[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=1000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--data-dir", default=os.environ.get("PACER_DATA_DIR", "/usr/share/datasets/fashion-mnist"))
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    splits = load_splits(a.data_dir)
    model = SimpleCnn().eval()
    images = sum(x.shape[0] for x, _ in splits.values())
    seconds = []
    with torch.inference_mode():
        for rep in range(a.reps + 1):
            start = time.perf_counter()
            for x, y in splits.values():
                evaluate(model, x, y, a.batch_size)
            if rep > 0:  # the first is the warm-up
                seconds.append(time.perf_counter() - start)
    print(json.dumps({"impl": "pytorch_python", "threads": a.threads, "batch_size": a.batch_size, "images": images,
                      "seconds": seconds, "best_seconds": min(seconds)}), flush=True)


if __name__ == "__main__":
    main()
