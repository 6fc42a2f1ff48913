"""sgd.py whose optimizer reads four hyperparameters (the tests give one: the message lists the other three)."""
import torch

from sgd import data_selection, get_batch_size, prepare_for_eval, update_params  # noqa: F401


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    optimizer = torch.optim.AdamW(model_params.parameters(), lr=hyperparameters.learning_rate,
                                  betas=(1.0 - hyperparameters.one_minus_beta1, hyperparameters.beta2),
                                  weight_decay=hyperparameters.weight_decay)
    return {"optimizer": optimizer, "steps": 0}
