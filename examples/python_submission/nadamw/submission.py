"""NAdamW with linear warmup and cosine decay: an AlgoPerf submission in PyTorch.

Written for Pacer after AlgoPerf's published submission API (the five functions below). The
update is AlgoPerf's NAdamW baseline: decoupled weight decay, Adam's moments, and a Nesterov
numerator beta1*m + (1-beta1)*g. It runs unchanged under AlgoPerf's own runner.

    pacer run -w fmnist_mlp -a examples/python_submission/nadamw --hparams point.json
"""

import math

import torch
from torch.optim.lr_scheduler import LambdaLR

from algoperf import spec


class NAdamW(torch.optim.Optimizer):
    """NAdamW over a list of tensors, with PyTorch's foreach kernels (one launch per op for all
    tensors, as torch.optim's own foreach implementations do)."""

    def __init__(self, params, lr, betas, eps=1e-8, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if not params:
                continue
            grads = [p.grad for p in params]
            beta1, beta2 = group["betas"]
            lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
            for p in params:
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
            exp_avgs = [self.state[p]["exp_avg"] for p in params]
            exp_avg_sqs = [self.state[p]["exp_avg_sq"] for p in params]
            step = self.state[params[0]]["step"]
            bias_correction1 = 1.0 - beta1**step
            bias_correction2 = 1.0 - beta2**step

            if weight_decay != 0.0:
                torch._foreach_mul_(params, 1.0 - lr * weight_decay)
            torch._foreach_mul_(exp_avgs, beta1)
            torch._foreach_add_(exp_avgs, grads, alpha=1.0 - beta1)
            torch._foreach_mul_(exp_avg_sqs, beta2)
            torch._foreach_addcmul_(exp_avg_sqs, grads, grads, value=1.0 - beta2)
            denominators = torch._foreach_sqrt(exp_avg_sqs)
            torch._foreach_div_(denominators, math.sqrt(bias_correction2))
            torch._foreach_add_(denominators, eps)
            numerators = torch._foreach_mul(exp_avgs, beta1)  # Nesterov: one step ahead
            torch._foreach_add_(numerators, grads, alpha=1.0 - beta1)
            torch._foreach_addcdiv_(params, numerators, denominators, value=-lr / bias_correction1)
        return None


def warmup_cosine(step_hint, hyperparameters):
    """Linear warmup from 0 over warmup_factor * step_hint steps, then cosine decay to 0."""
    warmup = int(hyperparameters.warmup_factor * step_hint)
    decay = max(1, step_hint - warmup)

    def factor(step):
        if step < warmup:
            return step / warmup
        t = step - warmup
        return 0.0 if t >= decay else 0.5 * (1.0 + math.cos(math.pi * t / decay))
    return factor


def init_optimizer_state(workload, model_params, model_state, hyperparameters, rng):
    del model_state, rng
    optimizer = NAdamW(
        model_params.parameters(),
        lr=hyperparameters.learning_rate,
        betas=(1.0 - hyperparameters.one_minus_beta1, hyperparameters.beta2),
        eps=1e-8,
        weight_decay=hyperparameters.weight_decay)
    scheduler = LambdaLR(optimizer, warmup_cosine(workload.step_hint, hyperparameters))
    return {"optimizer": optimizer, "scheduler": scheduler}


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    del current_params_types, loss_type, eval_results, train_state
    current_model = current_param_container
    current_model.train()
    optimizer_state["optimizer"].zero_grad()

    logits_batch, new_model_state = workload.model_fn(
        params=current_model,
        augmented_and_preprocessed_input_batch=batch,
        model_state=model_state,
        mode=spec.ForwardPassMode.TRAIN,
        rng=rng,
        update_batch_norm=True,
        dropout_rate=getattr(hyperparameters, "dropout_rate", 0.0))
    loss_dict = workload.loss_fn(
        label_batch=batch["targets"],
        logits_batch=logits_batch,
        mask_batch=batch.get("weights"),
        label_smoothing=getattr(hyperparameters, "label_smoothing", 0.0))
    loss = loss_dict["summed"] / loss_dict["n_valid_examples"]
    loss.backward()

    grad_clip = getattr(hyperparameters, "grad_clip", None)
    if grad_clip:
        torch.nn.utils.clip_grad_norm_(current_model.parameters(), max_norm=grad_clip)
    optimizer_state["optimizer"].step()
    optimizer_state["scheduler"].step()
    return optimizer_state, current_param_container, new_model_state


def prepare_for_eval(workload, current_param_container, current_params_types, model_state, hyperparameters,
                     loss_type, optimizer_state, eval_results, global_step, rng):
    del workload, current_params_types, hyperparameters, loss_type, eval_results, global_step, rng
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
