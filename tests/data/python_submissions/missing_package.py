"""A minimal AlgoPerf submission for the bridge's tests: plain SGD. `fail_above` makes update_params
raise at step 3 for a learning rate above it (a failing trial inside a study)."""
import torch
import jax_is_not_installed_here

from algoperf import spec


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    lr = hyperparameters.learning_rate if hyperparameters is not None else 0.1
    optimizer = torch.optim.SGD(model_params.parameters(), lr=lr, momentum=0.9)
    return {"optimizer": optimizer, "steps": 0}


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    if hyperparameters is not None and global_step == 3 and hyperparameters.learning_rate > getattr(hyperparameters, "fail_above", 1e9):
        raise ZeroDivisionError("learning rate too large for this test")
    current_param_container.train()
    optimizer_state["optimizer"].zero_grad()
    logits, new_state = workload.model_fn(current_param_container, batch, model_state,
                                          spec.ForwardPassMode.TRAIN, rng, True)
    loss = workload.loss_fn(batch["targets"], logits, batch.get("weights"))
    (loss["summed"] / loss["n_valid_examples"]).backward()
    optimizer_state["optimizer"].step()
    optimizer_state["steps"] += 1
    return optimizer_state, current_param_container, new_state


def prepare_for_eval(workload, current_param_container, current_params_types, model_state, hyperparameters,
                     loss_type, optimizer_state, eval_results, global_step, rng):
    return optimizer_state, current_param_container, model_state


def get_batch_size(workload_name):
    raise ValueError(f"Unsupported workload name: {workload_name}.")


def data_selection(workload, input_queue, optimizer_state, current_param_container, model_state,
                   hyperparameters, global_step, rng):
    return next(input_queue)
