"""Imports AlgoPerf as the v0.5 submissions do (`algorithmic_efficiency`, the package's name before
v0.6), checks that both names are one package, then defers to sgd.py."""
import os
import sys

import algorithmic_efficiency.random_utils as prng
from algorithmic_efficiency import spec
from algorithmic_efficiency.pytorch_utils import pytorch_setup

import algoperf.spec

USE_PYTORCH_DDP, RANK, DEVICE, N_GPUS = pytorch_setup()
assert not USE_PYTORCH_DDP and RANK == 0
assert spec is algoperf.spec and spec.ForwardPassMode.TRAIN is algoperf.spec.ForwardPassMode.TRAIN
assert len(prng.split(prng.PRNGKey(0), 2)) == 2

sys.path.insert(0, os.path.dirname(__file__))
from sgd import data_selection, get_batch_size, init_optimizer_state, prepare_for_eval, update_params  # noqa: E402,F401
