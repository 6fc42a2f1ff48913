"""hostile.py fixed to one misbehaviour, "segfault" at step 2, for a board with several hostile submissions."""
import hostile
from sgd import data_selection, get_batch_size, init_optimizer_state, prepare_for_eval  # noqa: F401


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    return hostile.misbehaving_update("segfault", workload, current_param_container, current_params_types, model_state,
                                      hyperparameters, batch, loss_type, optimizer_state, eval_results, global_step,
                                      rng)
