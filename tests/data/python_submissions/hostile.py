"""sgd.py that misbehaves at step 2 as PACER_TEST_HOSTILE says: "segfault" (its process dies),
"hang" (the step never returns, and Ctrl-C is ignored), "exit" (os._exit(0): no result), "exit2"
(os._exit(2): the status of bad input, yet no input was bad), "x32" (a system call of the x32 ABI,
which a cpu-clock trial's filter cannot read as its own), "daemon" (fork, setsid, fork: a process
outside the trial's process group, its pid printed as "hostile daemon pid N" on stderr), "ptrace" (attaches
to the process that waits for the trial; raises if that worked), "fork" (a second process runs
on), "fork_at_import" (a process started while the module is imported), "report_import"
(prints whether the process importing it is restricted), "threads"
(torch.set_num_threads(2): more compute than granted), "read_data" (reads the test split's labels
of $PACER_TEST_DATA_FILE), "write_store" (appends to the file $PACER_TEST_VICTIM names: the study
store, another run's folder), "exit_after_finishing" (os._exit(3) from a C atexit handler: its
process dies after its trial finished, before the C library flushes its output). The file modes
print what the kernel answered, as "hostile: ...". Untrusted code of this kind must fail its trial
alone."""
import ctypes
import os
import signal
import sys
import time

import sgd
from sgd import data_selection, get_batch_size, init_optimizer_state, prepare_for_eval  # noqa: F401


# "report_import": says, while imported, whether its process is restricted (every import must be
# in a contained process: NoNewPrivs 1, set by its filters and file restrictions).
if os.environ.get("PACER_TEST_HOSTILE") == "report_import":
    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    print(f"hostile: imported in pid {os.getpid()}, NoNewPrivs {fields['NoNewPrivs'].strip()}",
          file=sys.stderr, flush=True)

# "fork_at_import": a process started while the module is imported (it ends at once).
if os.environ.get("PACER_TEST_HOSTILE") == "fork_at_import" and os.fork() == 0:
    os._exit(0)


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
        elif how == "daemon":
            reader, writer = os.pipe()
            child = os.fork()
            if child == 0:
                os.setsid()
                grandchild = os.fork()
                if grandchild == 0:
                    time.sleep(120)
                    os._exit(0)
                os.write(writer, str(grandchild).encode())
                os._exit(0)
            os.waitpid(child, 0)
            print(f"hostile daemon pid {os.read(reader, 32).decode()}", file=sys.stderr, flush=True)
        elif how in ("read_data", "write_store"):
            try:
                if how == "read_data":
                    with open(os.environ["PACER_TEST_DATA_FILE"], "rb") as f:
                        print(f"hostile: read {len(f.read())} bytes", file=sys.stderr, flush=True)
                else:
                    with open(os.environ["PACER_TEST_VICTIM"], "ab") as f:
                        f.write(b"forged")
                    print("hostile: wrote the victim", file=sys.stderr, flush=True)
            except OSError as e:
                print(f"hostile: refused: {type(e).__name__}: {e.strerror}", file=sys.stderr, flush=True)
        elif how == "ptrace":
            libc = ctypes.CDLL(None, use_errno=True)
            parent = os.getppid()
            if libc.ptrace(16, parent, None, None) == 0:  # PTRACE_ATTACH
                os.waitpid(parent, 0x40000000)            # __WALL: until it stops
                libc.ptrace(17, parent, None, None)       # PTRACE_DETACH: let it go on
                raise RuntimeError(f"attached to the waiting process {parent} with ptrace")
        elif how == "x32":
            ctypes.CDLL(None, use_errno=True).syscall(0x40000000 | 39)  # x32's getpid
        elif how == "threads":
            import torch
            torch.set_num_threads(2)
        elif how == "exit_after_finishing":
            global _at_exit
            # atexit() itself is not exported by glibc; __cxa_atexit, which it calls, is.
            _at_exit = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda _: os._exit(3))  # kept: called at exit
            ctypes.CDLL(None).__cxa_atexit(_at_exit, None, None)
        elif how == "fork" and os.fork() == 0:
            time.sleep(60)
            os._exit(0)
    return sgd.update_params(workload, current_param_container, current_params_types, model_state,
                             hyperparameters, batch, loss_type, optimizer_state, eval_results, global_step, rng)
