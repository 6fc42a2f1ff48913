"""A submission whose space holds a string and a boolean, as Distributed Shampoo's does
("grafting_type": "ADAM"): it fails unless each value arrives as AlgoPerf hands it (str, bool)."""
import torch

from algoperf import spec


def check(hyperparameters):
    if not isinstance(hyperparameters.grafting_type, str) or hyperparameters.grafting_type not in ("SGD", "ADAM"):
        raise TypeError(f"grafting_type arrived as {hyperparameters.grafting_type!r}")
    if not isinstance(hyperparameters.nesterov, bool):
        raise TypeError(f"nesterov arrived as {hyperparameters.nesterov!r}")
    if not isinstance(hyperparameters.learning_rate, float):
        raise TypeError(f"learning_rate arrived as {hyperparameters.learning_rate!r}")


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    check(hyperparameters)
    params = model_params.parameters()
    lr = hyperparameters.learning_rate
    if hyperparameters.grafting_type == "ADAM":
        optimizer = torch.optim.Adam(params, lr=lr / 10)
    else:
        optimizer = torch.optim.SGD(params, lr=lr, momentum=0.9, nesterov=hyperparameters.nesterov)
    return {"optimizer": optimizer}


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    current_param_container.train()
    optimizer_state["optimizer"].zero_grad()
    logits, new_state = workload.model_fn(current_param_container, batch, model_state,
                                          spec.ForwardPassMode.TRAIN, rng, True)
    loss = workload.loss_fn(batch["targets"], logits, batch.get("weights"))
    (loss["summed"] / loss["n_valid_examples"]).backward()
    optimizer_state["optimizer"].step()
    return optimizer_state, current_param_container, new_state


def prepare_for_eval(workload, current_param_container, current_params_types, model_state, hyperparameters,
                     loss_type, optimizer_state, eval_results, global_step, rng):
    return optimizer_state, current_param_container, model_state


def get_batch_size(workload_name):
    return 128


def data_selection(workload, input_queue, optimizer_state, current_param_container, model_state,
                   hyperparameters, global_step, rng):
    return next(input_queue)
