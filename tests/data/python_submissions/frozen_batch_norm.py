"""sgd.py, but every training forward pass leaves the batch-norm statistics as they were
(update_batch_norm=False, as Schedule-Free AdamW v2's closure does), and update_params checks
that they were: on PyTorch 2.x the bridge's restore once broke the backward that followed."""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(__file__))
from algoperf import spec  # noqa: E402
from sgd import data_selection, get_batch_size, init_optimizer_state, prepare_for_eval  # noqa: E402,F401


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    current_param_container.train()
    optimizer_state["optimizer"].zero_grad()
    before = [b.detach().clone() for b in current_param_container.buffers()]
    logits, new_state = workload.model_fn(current_param_container, batch, model_state,
                                          spec.ForwardPassMode.TRAIN, rng, False)
    loss = workload.loss_fn(batch["targets"], logits, batch.get("weights"))
    (loss["summed"] / loss["n_valid_examples"]).backward()
    after = list(current_param_container.buffers())
    if len(before) != len(after) or not all(torch.equal(a, b) for a, b in zip(before, after)):
        raise AssertionError("update_batch_norm=False changed the batch-norm statistics")
    optimizer_state["optimizer"].step()
    return optimizer_state, current_param_container, new_state
