"""Uses torch.compile at import, as the 2026 Muon submissions do: PyTorch 2.x only (the compiled
function is never called, so nothing is compiled). Then defers to sgd.py."""
import os
import sys

import torch


@torch.compile
def _scaled(x):
    return 2 * x


sys.path.insert(0, os.path.dirname(__file__))
from sgd import data_selection, get_batch_size, init_optimizer_state, prepare_for_eval, update_params  # noqa: E402,F401
