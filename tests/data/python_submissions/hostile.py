"""sgd.py that misbehaves at step 2 as PACER_TEST_HOSTILE says: "segfault" (its process dies),
"hang" (the step never returns, and Ctrl-C is ignored), "exit" (os._exit(0): no result), "exit2"
(os._exit(2): the status of bad input, yet no input was bad), "x32" (a system call of the x32 ABI,
which a cpu-clock trial's filter cannot read as its own), "fork"
(a second process runs on), "threads" (torch.set_num_threads(2): more compute than granted). Untrusted code of this kind must fail its trial alone."""
import ctypes
import os
import signal
import time

import sgd
from sgd import data_selection, get_batch_size, init_optimizer_state, prepare_for_eval  # noqa: F401


def update_params(workload, current_param_container, current_params_types, model_state, hyperparameters,
                  batch, loss_type, optimizer_state, eval_results, global_step, rng, train_state=None):
    return misbehaving_update(os.environ.get("PACER_TEST_HOSTILE", ""), workload, current_param_container,
                              current_params_types, model_state, hyperparameters, batch, loss_type, optimizer_state,
                              eval_results, global_step, rng)


def misbehaving_update(how, workload, current_param_container, current_params_types, model_state, hyperparameters,
                       batch, loss_type, optimizer_state, eval_results, global_step, rng):
    if global_step == 2:
        if how == "segfault":
            ctypes.string_at(0)
        elif how == "hang":
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            while True:
                time.sleep(0.1)
        elif how == "exit":
            os._exit(0)
        elif how == "exit2":
            os._exit(2)
        elif how == "x32":
            ctypes.CDLL(None, use_errno=True).syscall(0x40000000 | 39)  # x32's getpid
        elif how == "threads":
            import torch
            torch.set_num_threads(2)
        elif how == "fork" and os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    return sgd.update_params(workload, current_param_container, current_params_types, model_state,
                             hyperparameters, batch, loss_type, optimizer_state, eval_results, global_step, rng)
