"""sgd.py whose update_params raises a KeyError at step 2 (the tests expect file, function, line)."""
import sgd
from sgd import data_selection, get_batch_size, init_optimizer_state, prepare_for_eval  # noqa: F401


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    if global_step == 2:
        return {}[ "missing" ]
    return sgd.update_params(workload, current_param_container, current_params_types, model_state,
                             hyperparameters, batch, loss_type, optimizer_state, eval_results, global_step, rng)
