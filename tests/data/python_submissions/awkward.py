"""sgd.py with one awkward behaviour, chosen by the environment's AWKWARD_CASE (hardening round 5, item 17):
1: get_batch_size returns numpy.int64 (a computed size; must be accepted);
2: update_params raises with a lone surrogate in its message (must reach the user, escaped);
3: update_params raises with a 16 MiB message (must be cut, not copied whole into trial.json);
4: data_selection returns an empty batch (must be named, not reported as a divergence)."""
import os

import numpy

import sgd
from sgd import init_optimizer_state, prepare_for_eval  # noqa: F401

CASE = int(os.environ.get("AWKWARD_CASE", "1"))


def get_batch_size(workload_name):
    return numpy.int64(64)


def data_selection(workload, input_queue, optimizer_state, current_param_container, model_state, hyperparameters,
                   global_step, rng):
    batch = sgd.data_selection(workload, input_queue, optimizer_state, current_param_container, model_state,
                               hyperparameters, global_step, rng)
    if CASE == 4:
        return {"inputs": batch["inputs"][:0], "targets": batch["targets"][:0]}
    return batch


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    if CASE == 2:
        raise ValueError("bad byte \udcff here")
    if CASE == 3:
        raise ValueError("x" * (16 << 20))
    return sgd.update_params(workload, current_param_container, current_params_types, model_state,
                             hyperparameters, batch, loss_type, optimizer_state, eval_results, global_step, rng)
