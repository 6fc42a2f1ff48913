"""Imports what typical PyTorch submissions import from AlgoPerf, then defers to sgd.py."""
import os
import sys

from algoperf import random_utils as prng
from algoperf import spec
from algoperf.pytorch_utils import pytorch_setup

USE_PYTORCH_DDP, RANK, DEVICE, N_GPUS = pytorch_setup()
assert not USE_PYTORCH_DDP and RANK == 0
assert spec.ForwardPassMode.TRAIN != spec.ForwardPassMode.EVAL
assert len(prng.split(prng.PRNGKey(0), 2)) == 2

sys.path.insert(0, os.path.dirname(__file__))
from sgd import data_selection, get_batch_size, init_optimizer_state, prepare_for_eval, update_params  # noqa: E402,F401
