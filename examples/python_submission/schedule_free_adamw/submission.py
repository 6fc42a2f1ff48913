"""Schedule-Free AdamW: an AlgoPerf submission in PyTorch that uses prepare_for_eval.

Written for Pacer after AlgoPerf's published submission API. Schedule-Free (Defazio et al., 2024)
keeps two sequences: z, moved by AdamW-normalised gradient steps, and x, the weighted average of
the z's. Gradients are taken at y, between the two; evaluations are at x. So update_params moves
the parameters to y and prepare_for_eval moves them to x, then recomputes the batch-norm
statistics at x from recent training batches (they were gathered at y).

    pacer run -w fmnist_resnet -a examples/python_submission/schedule_free_adamw --hparams point.json
"""

import torch

from algoperf import spec

RECOMPUTE_BATCHES = 8  # recent training batches that give the batch-norm statistics at x


class ScheduleFreeAdamW(torch.optim.Optimizer):
    """The parameters hold y while training (train()) and x while evaluating (eval())."""

    def __init__(self, params, lr, betas, eps, weight_decay, r=0.0, weight_lr_power=2.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, r=r,
                                      weight_lr_power=weight_lr_power, k=0, lr_max=0.0, weight_sum=0.0,
                                      train_mode=True))

    @torch.no_grad()
    def eval(self):
        for group in self.param_groups:
            if group["train_mode"]:
                beta1 = group["betas"][0]
                for p in group["params"]:
                    if "z" in self.state[p]:
                        p.lerp_(self.state[p]["z"], 1.0 - 1.0 / beta1)  # y -> x
                group["train_mode"] = False

    @torch.no_grad()
    def train(self):
        for group in self.param_groups:
            if not group["train_mode"]:
                beta1 = group["betas"][0]
                for p in group["params"]:
                    if "z" in self.state[p]:
                        p.lerp_(self.state[p]["z"], 1.0 - beta1)  # x -> y
                group["train_mode"] = True

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            if not group["train_mode"]:
                raise RuntimeError("Schedule-Free: step() at the evaluation point; call train() first")
            beta1, beta2 = group["betas"]
            lr, eps, decay = group["lr"], group["eps"], group["weight_decay"]
            k1 = group["k"] + 1
            bias_correction2 = 1.0 - beta2**k1
            group["lr_max"] = max(group["lr_max"], lr)
            weight = (k1 ** group["r"]) * (group["lr_max"] ** group["weight_lr_power"])
            group["weight_sum"] += weight
            ckp1 = weight / group["weight_sum"] if group["weight_sum"] != 0.0 else 0.0
            adaptive_y_lr = lr * (beta1 * (1.0 - ckp1) - 1.0)
            for y in group["params"]:
                if y.grad is None:
                    continue
                state = self.state[y]
                if not state:
                    state["z"] = y.clone()
                    state["exp_avg_sq"] = torch.zeros_like(y)
                z, exp_avg_sq, grad = state["z"], state["exp_avg_sq"], y.grad
                exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1.0 - beta2)
                normalized = grad / (exp_avg_sq / bias_correction2).sqrt_().add_(eps)
                if decay != 0.0:
                    normalized.add_(y, alpha=decay)
                y.lerp_(z, ckp1)
                y.add_(normalized, alpha=adaptive_y_lr)
                z.sub_(normalized, alpha=lr)
            group["k"] = k1
        return None


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    del model_state, rng
    optimizer = ScheduleFreeAdamW(
        model_params.parameters(),
        lr=hyperparameters.learning_rate,
        betas=(1.0 - hyperparameters.one_minus_beta1, hyperparameters.beta2),
        eps=hyperparameters.epsilon,
        weight_decay=hyperparameters.weight_decay,
        r=hyperparameters.r,
        weight_lr_power=hyperparameters.weight_lr_power)
    warmup = int(hyperparameters.warmup_factor * workload.step_hint)
    return {"optimizer": optimizer, "warmup_steps": warmup, "recent_inputs": []}


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    del current_params_types, loss_type, eval_results, train_state
    optimizer = optimizer_state["optimizer"]
    recent = optimizer_state["recent_inputs"]
    recent.append(batch["inputs"])
    del recent[:-RECOMPUTE_BATCHES]

    optimizer.train()  # gradients are taken at y
    current_param_container.train()
    optimizer.zero_grad()
    # Warmup from the first step, then the constant learning rate (no schedule).
    warmup = optimizer_state["warmup_steps"]
    factor = min(1.0, (global_step + 1) / warmup) if warmup > 0 else 1.0
    for group in optimizer.param_groups:
        group["lr"] = hyperparameters.learning_rate * factor

    logits, new_model_state = workload.model_fn(
        current_param_container, batch, model_state, spec.ForwardPassMode.TRAIN, rng,
        update_batch_norm=True, dropout_rate=getattr(hyperparameters, "dropout_rate", 0.0))
    loss_dict = workload.loss_fn(batch["targets"], logits, batch.get("weights"),
                                 label_smoothing=getattr(hyperparameters, "label_smoothing", 0.0))
    loss = loss_dict["summed"] / loss_dict["n_valid_examples"]
    loss.backward()
    grad_clip = getattr(hyperparameters, "grad_clip", None)
    if grad_clip:
        torch.nn.utils.clip_grad_norm_(current_param_container.parameters(), max_norm=grad_clip)
    optimizer.step()
    return optimizer_state, current_param_container, new_model_state


def prepare_for_eval(workload, current_param_container, current_params_types, model_state, hyperparameters,
                     loss_type, optimizer_state, eval_results, global_step, rng):
    del current_params_types, hyperparameters, loss_type, eval_results, global_step
    optimizer_state["optimizer"].eval()  # parameters to x
    batch_norms = [m for m in current_param_container.modules() if hasattr(m, "reset_running_stats")]
    if batch_norms and optimizer_state["recent_inputs"]:
        momenta = [m.momentum for m in batch_norms]
        for m in batch_norms:
            m.reset_running_stats()
            m.momentum = None  # a plain average over the batches below
        with torch.no_grad():
            for inputs in optimizer_state["recent_inputs"]:
                workload.model_fn(current_param_container, {"inputs": inputs}, model_state,
                                  spec.ForwardPassMode.TRAIN, rng, update_batch_norm=True, dropout_rate=0.0)
        for m, momentum in zip(batch_norms, momenta):
            m.momentum = momentum
    return optimizer_state, current_param_container, model_state


def get_batch_size(workload_name):
    sizes = {"fmnist_mlp": 256, "fmnist_cnn": 128, "fmnist_resnet": 128}
    if workload_name not in sizes:
        raise ValueError(f"Unsupported workload name: {workload_name}.")
    return sizes[workload_name]


def data_selection(workload, input_queue, optimizer_state, current_param_container, model_state,
                   hyperparameters, global_step, rng):
    del workload, optimizer_state, current_param_container, model_state, hyperparameters, global_step, rng
    return next(input_queue)
