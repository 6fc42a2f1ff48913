"""Pacer's side of a Python submission (loaded by src/python_bridge/python_submission.cpp).

It loads the submission file, and builds the objects AlgoPerf hands a PyTorch submission: the
workload, the parameter container, the hyperparameters and the input queue. Their heavy parts
(the forward pass, the loss, the next batch) are Pacer's own, reached through `binding`, the C++
object of one trial (`_pacer_bridge.Binding`).
"""

import collections
import importlib.util
import inspect
import io
import operator
import os
import re
import sys
import traceback

import torch

from algoperf import spec

REQUIRED = ("init_optimizer_state", "update_params", "get_batch_size", "data_selection")
OPTIONAL = ("prepare_for_eval",)
PROVIDED = ("algoperf", "algoperf.spec", "algoperf.pytorch_utils", "algoperf.random_utils")
# AlgoPerf's package before v0.6, the same modules (python/algorithmic_efficiency).
PACKAGES = ("algoperf", "algorithmic_efficiency")


class SubmissionFailure(Exception):
    """A message already formatted for the user (file, function, line, the traceback's end)."""


def needs_newer_torch(exc):
    """What to say when a submission meets the limits of PyTorch 1.x (Debian's 1.13, which the
    default build embeds): an API it lacks (torch.compile), or 1.13's internal assert in mixed-dtype
    in-place arithmetic (Schedule-Free AdamW's addcmul_), fixed in 2.x."""
    major = int(torch.__version__.split(".")[0])
    if major >= 2:
        return ""
    text = str(exc)
    missing_api = isinstance(exc, AttributeError) and re.match(r"module 'torch(\.\w+)*' has no attribute", text)
    internal_assert = isinstance(exc, RuntimeError) and "needs_dynamic_casting" in text
    if not (missing_api or internal_assert):
        return ""
    return (f" (this submission needs PyTorch 2.x; this Pacer embeds PyTorch {torch.__version__}: build Pacer "
            "against pip's torch with `make test TORCH=pip`, docs/development.md)")


def describe_exception(exc, tb, path, function):
    """'FILE: FUNCTION, line N (in NAME): Type: message' and the last lines of the traceback,
    without the import machinery's own frames."""
    tb = tb if tb is not None else exc.__traceback__
    frames = [f for f in traceback.extract_tb(tb) if not f.filename.startswith("<frozen")]
    mine = [f for f in frames if os.path.realpath(f.filename) == os.path.realpath(path)]
    where = ""
    if isinstance(exc, SyntaxError) and exc.filename and os.path.realpath(exc.filename) == os.path.realpath(path):
        where = f", line {exc.lineno}"
    elif mine:
        where = f", line {mine[-1].lineno} (in {mine[-1].name})"
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, ModuleNotFoundError) and exc.name and exc.name.split(".")[0] in PACKAGES \
            and exc.name.replace("algorithmic_efficiency", "algoperf", 1) not in PROVIDED:
        text += (f" (Pacer's algoperf shim provides {', '.join(PROVIDED)}, also under the name "
                 "algorithmic_efficiency; see docs/python_submissions.md)")
    text += missing_hyperparameters(exc, path)
    text += needs_newer_torch(exc)
    tail = "".join(traceback.format_list(frames[-3:]) + traceback.format_exception_only(type(exc), exc))
    return printable(f"{path}: {function}{where}: {clipped(text)}\n  traceback (last lines):\n    " +
                     "\n    ".join(clipped(tail).rstrip().splitlines()))


# What a submission's exception may put into messages, trial.json and the store: at most this many
# characters of its text (a 16 MiB message went whole into all three).
MESSAGE_LIMIT = 4000


def clipped(text):
    if len(text) <= MESSAGE_LIMIT:
        return text
    return text[:MESSAGE_LIMIT] + f" ... [{len(text) - MESSAGE_LIMIT} more characters cut]"


def printable(text):
    """Text that converts to UTF-8: a lone surrogate (from a bytes-decoding error, or put there)
    made pybind11 fail with 'Unable to cast Python instance to C++ type' instead of the message."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# `hyperparameters.NAME` in a submission's source: the names it reads (AlgoPerf's argument name).
READS_HYPERPARAMETER = re.compile(r"\bhyperparameters\.([A-Za-z_][A-Za-z0-9_]*)")


def missing_hyperparameters(exc, path):
    """For an AttributeError on the hyperparameters (none given, or a point without NAME): every
    name the submission's source reads that the point lacks, not only the first one it tripped on."""
    if not isinstance(exc, AttributeError):
        return ""
    obj = getattr(exc, "obj", None)
    if obj is not None and type(obj).__name__ != "Hyperparameters":
        return ""
    try:
        source = open(path, encoding="utf-8").read()
    except OSError:
        return ""
    given = set(getattr(obj, "_fields", ())) if obj is not None else set()
    read = []
    for name in READS_HYPERPARAMETER.findall(source):
        if name not in read and not name.startswith("_"):
            read.append(name)
    missing = [n for n in read if n not in given]
    if getattr(exc, "name", None) not in read or not missing:
        return ""
    how = "give them with --hparams FILE or --set NAME=VALUE" if obj is not None else \
        "it was run without hyperparameters: give them with --hparams FILE or --set NAME=VALUE"
    return f" (the submission reads {len(read)} hyperparameters; missing: {', '.join(missing)}; {how})"


def short_description(exc):
    return f"{type(exc).__name__}: {exc}"


# The folders under which AlgoPerf's repositories keep submissions. AlgoPerf's runner starts at a
# repository's root, so a submission there may import by its package path from that root
# (`from submissions.self_tuning.muon.muon import ...`).
SUBMISSION_FOLDERS = ("submissions", "algorithms", "reference_algorithms", "prize_qualification_baselines",
                      "previous_leaderboards")


def repository_roots(folder):
    """The folders above `folder` that hold one of SUBMISSION_FOLDERS on its way, nearest first."""
    roots = []
    here = os.path.abspath(folder)
    while True:
        parent = os.path.dirname(here)
        if parent == here:
            return roots
        if os.path.basename(here) in SUBMISSION_FOLDERS and parent not in roots:
            roots.append(parent)
        here = parent


def load(path, folder):
    """Imports the submission file; returns (module, names of the API functions it lacks of the
    optional ones). SubmissionFailure for a file that cannot be imported or lacks a function."""
    if folder and folder not in sys.path:
        sys.path.insert(0, folder)  # a submission may import modules beside it, and its sub-packages
    # Then, after its own folder, the roots of a repository laid out as AlgoPerf's, nearest first.
    at = sys.path.index(folder) + 1 if folder in sys.path else 0
    for root in repository_roots(folder or os.path.dirname(path)):
        if root not in sys.path:
            sys.path.insert(at, root)
            at += 1
    spec_ = importlib.util.spec_from_file_location("submission", path)
    if spec_ is None or spec_.loader is None:
        raise SubmissionFailure(f"{path}: not a Python file Python can load")
    module = importlib.util.module_from_spec(spec_)
    try:
        spec_.loader.exec_module(module)
    except BaseException as exc:  # SyntaxError, ImportError, anything the module runs
        raise SubmissionFailure(describe_exception(exc, exc.__traceback__, path, "import")) from None
    missing = [name for name in REQUIRED if not callable(getattr(module, name, None))]
    if missing:
        raise SubmissionFailure(
            f"{path}: missing function{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(an AlgoPerf submission defines {', '.join(REQUIRED + OPTIONAL)})")
    absent = [name for name in OPTIONAL if not callable(getattr(module, name, None))]
    takes_train_state = "train_state" in inspect.signature(module.update_params).parameters
    return module, absent, takes_train_state


class ParamContainer:
    """The network as AlgoPerf's `current_param_container`: its parameters are the network's own
    leaf tensors, trained in place."""

    def __init__(self, binding):
        self._binding = binding
        self._named = list(binding.named_parameters())

    def named_parameters(self, prefix="", recurse=True):
        for name, tensor in self._named:
            yield (prefix + "." + name if prefix else name), tensor

    def parameters(self, recurse=True):
        for _, tensor in self._named:
            yield tensor

    def named_buffers(self, prefix="", recurse=True):
        for name, tensor in self._binding.named_buffers():
            yield (prefix + "." + name if prefix else name), tensor

    def buffers(self, recurse=True):
        for _, tensor in self._binding.named_buffers():
            yield tensor

    def modules(self):
        """The batch-norm layers, with `momentum`, `running_mean`, `running_var` and
        `reset_running_stats()` as torch.nn.BatchNorm2d has them."""
        return list(self._binding.batch_norm_layers())

    def train(self, mode=True):
        self._binding.set_training(bool(mode))
        return self

    def eval(self):
        return self.train(False)

    @property
    def training(self):
        return self._binding.is_training()

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    def state_dict(self):
        out = collections.OrderedDict(self._named)
        out.update(self._binding.named_buffers())
        return out

    def __repr__(self):
        return f"<Pacer network: {len(self._named)} parameter tensors>"


class Workload:
    """What AlgoPerf's PyTorch workloads offer a submission, over one of Pacer's workloads."""

    def __init__(self, binding, attributes):
        self._binding = binding
        for key, value in attributes.items():
            setattr(self, key, value)
        self.loss_type = spec.LossType[attributes["loss_type_name"]]
        self.param_shapes = {name: spec.ShapeTuple(t.shape) for name, t in binding.named_parameters()}
        self.model_params_types = {
            name: spec.ParameterType[type_name] for name, type_name in binding.parameter_types()}
        self.metrics_logger = None  # Pacer logs the training loss itself (docs/python_submissions.md)

    def model_fn(self, params, augmented_and_preprocessed_input_batch, model_state, mode, rng,
                 update_batch_norm, *more, use_running_average_bn=None, dropout_rate=None):
        # AlgoPerf versions differ in what follows update_batch_norm: use_running_average_bn (a
        # bool or None) and/or dropout_rate (a number). Both are accepted by position or name.
        for value in more:
            if value is None or isinstance(value, bool):
                use_running_average_bn = value
            else:
                dropout_rate = value
        if not isinstance(mode, spec.ForwardPassMode):
            raise TypeError(f"model_fn: mode must be spec.ForwardPassMode, got {mode!r}")
        batch = augmented_and_preprocessed_input_batch
        inputs = batch["inputs"] if isinstance(batch, dict) else batch
        train = mode == spec.ForwardPassMode.TRAIN
        outputs = self._binding.model_fn(inputs, train, float(dropout_rate or 0.0), bool(update_batch_norm))
        return outputs, model_state

    def loss_fn(self, label_batch, logits_batch, mask_batch=None, label_smoothing=0.0):
        summed, n_valid, per_example = self._binding.loss_fn(label_batch, logits_batch, mask_batch,
                                                             float(label_smoothing or 0.0))
        return {"summed": summed, "n_valid_examples": n_valid, "per_example": per_example}

    def is_output_params(self, param_key):
        return param_key == self.output_param_name

    def has_reached_validation_target(self, eval_result):
        value = eval_result[f"validation/{self.target_metric_name}"]
        return value >= self.validation_target_value if self.higher_is_better else value <= self.validation_target_value

    def has_reached_test_target(self, eval_result):
        value = eval_result[f"test/{self.target_metric_name}"]
        return value >= self.test_target_value if self.higher_is_better else value <= self.test_target_value


def make_rng(seed):
    """A per-call random key as AlgoPerf hands PyTorch submissions one: two uint32 words."""
    import numpy as np
    return np.array([(seed >> 32) & 0xFFFFFFFF, seed & 0xFFFFFFFF], dtype=np.uint32)


def make_hyperparameters(values):
    """AlgoPerf hands hyperparameters as a namedtuple of the point's names."""
    if values is None:
        return None
    names = [str(k) for k in values.keys()]
    bad = [n for n in names if not n.isidentifier()]
    if bad:
        raise SubmissionFailure(f"hyperparameter names must be Python identifiers: {', '.join(bad)}")
    return collections.namedtuple("Hyperparameters", names)(**values)


class InputQueue:
    """`input_queue`: each next() is the next training batch of Pacer's data order."""

    def __init__(self, binding):
        self._binding = binding

    def __iter__(self):
        return self

    def __next__(self):
        return self._binding.next_batch()


def check_update_return(value, container, function):
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise SubmissionFailure(
            f"{function} returned {type(value).__name__}"
            f"{' of length ' + str(len(value)) if isinstance(value, (tuple, list)) else ''}; expected a tuple "
            "(optimizer_state, current_param_container, model_state)")
    if value[1] is not container:
        raise SubmissionFailure(
            f"{function} returned a parameter container other than the one it was given; Pacer trains the "
            "network in place, so return current_param_container")
    return value[0]


def check_batch(value, function):
    if not isinstance(value, dict) or "inputs" not in value or "targets" not in value:
        raise SubmissionFailure(
            f"{function} returned {type(value).__name__}; expected a batch dict with 'inputs' and 'targets'")
    # An empty batch made a NaN loss, which the trial reported as "diverged".
    for key in ("inputs", "targets"):
        part = value[key]
        if isinstance(part, torch.Tensor) and (part.dim() == 0 or part.shape[0] == 0):
            raise SubmissionFailure(f"{function} returned a batch whose '{key}' holds no examples "
                                    f"(shape {tuple(part.shape)})")
    return value


def check_batch_size(value, workload_name):
    # Any integer type (numpy.int64 from a computed size) through __index__; not bool, not float.
    if not isinstance(value, bool) and not isinstance(value, int) and hasattr(type(value), "__index__"):
        try:
            value = operator.index(value)
        except TypeError:
            pass
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise SubmissionFailure(f"get_batch_size('{workload_name}') returned {value!r}; expected a positive int")
    return value


def save_state(optimizer_state):
    """The optimizer state as bytes: objects with state_dict() (optimizers, schedulers) by their
    state dicts, anything else as it is; torch.save format."""
    def pack(value):
        if hasattr(value, "state_dict") and callable(value.state_dict):
            return ("state_dict", value.state_dict())
        if isinstance(value, dict):
            return ("dict", {k: pack(v) for k, v in value.items()})
        if isinstance(value, (list, tuple)):
            return (type(value).__name__, [pack(v) for v in value])
        return ("value", value)
    buffer = io.BytesIO()
    torch.save(pack(optimizer_state), buffer)
    return buffer.getvalue()


def load_state(optimizer_state, data):
    """Restores into the freshly initialised `optimizer_state` what save_state wrote; returns it."""
    packed = torch.load(io.BytesIO(bytes(data)))

    def unpack(current, saved):
        kind, value = saved
        if kind == "state_dict":
            if current is None or not hasattr(current, "load_state_dict"):
                raise SubmissionFailure("checkpoint: the optimizer state has no object to restore a state dict into")
            current.load_state_dict(value)
            return current
        if kind == "dict":
            base = current if isinstance(current, dict) else {}
            for k, v in value.items():
                base[k] = unpack(base.get(k), v)
            return base
        if kind in ("list", "tuple"):
            items = list(current) if isinstance(current, (list, tuple)) and len(current) == len(value) \
                else [None] * len(value)
            restored = [unpack(c, v) for c, v in zip(items, value)]
            return restored if kind == "list" else tuple(restored)
        return value
    return unpack(optimizer_state, packed)
