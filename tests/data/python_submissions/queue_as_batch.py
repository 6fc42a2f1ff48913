"""Returns the input queue itself from data_selection and draws each batch inside update_params, as
AlgoPerf's LAWA submissions do (AlgoPerf's runner hands update_params whatever data_selection
returned); otherwise sgd.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import sgd  # noqa: E402
from sgd import get_batch_size, init_optimizer_state, prepare_for_eval  # noqa: E402,F401


def data_selection(workload, input_queue, optimizer_state, current_param_container, model_state,
                   hyperparameters, global_step, rng):
    return input_queue


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng):
    drawn = next(batch)
    assert isinstance(drawn, dict) and "inputs" in drawn, type(drawn)
    return sgd.update_params(workload, current_param_container, current_params_types, model_state,
                             hyperparameters, drawn, loss_type, optimizer_state, eval_results, global_step, rng)
