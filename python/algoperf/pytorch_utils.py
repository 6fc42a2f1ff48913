"""`algoperf.pytorch_utils` as a submission uses it. Pacer runs a Python submission in one
process on one device: no DDP (data parallelism is refused for Python submissions)."""

import torch


def pytorch_setup():
    """(use_pytorch_ddp, rank, device, n_gpus) as AlgoPerf returns them, for this process."""
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    return False, 0, device, torch.cuda.device_count()


def pytorch_init(use_pytorch_ddp, rank, profiler=None):
    """Nothing to set up: Pacer has already initialised LibTorch (threads, seeds)."""
    return None


def sync_ddp_time(time, device):
    return time


def update_batch_norm_fn(module, update_batch_norm):
    """AlgoPerf's helper; Pacer's workload.model_fn applies update_batch_norm itself."""
    return None
