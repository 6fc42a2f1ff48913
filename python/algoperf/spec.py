"""AlgoPerf's `algoperf.spec` names as a submission uses them: the enums, the shape tuple and the
type aliases of the submission API. Pacer's workloads are not subclasses of `spec.Workload`; they
offer the attributes a submission reads (docs/python_submissions.md)."""

import enum
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union


class LossType(enum.Enum):
    SOFTMAX_CROSS_ENTROPY = 0
    SIGMOID_CROSS_ENTROPY = 1
    MEAN_SQUARED_ERROR = 2
    CTC_LOSS = 3
    MEAN_ABSOLUTE_ERROR = 4


class ForwardPassMode(enum.Enum):
    TRAIN = 0
    EVAL = 1


class ParameterType(enum.Enum):
    WEIGHT = 0
    BIAS = 1
    CONV_WEIGHT = 2
    BATCH_NORM_SCALE = 3
    BATCH_NORM_BIAS = 4
    LAYER_NORM_SCALE = 5
    LAYER_NORM_BIAS = 6
    EMBEDDING = 7
    ATTENTION_Q = 8
    ATTENTION_K = 9
    ATTENTION_V = 10
    ATTENTION_OUT = 11
    ATTENTION_QKV = 12
    ATTENTION_KV = 13
    ATTENTION_BIAS = 14


class ShapeTuple:
    """A parameter's shape, as `workload.param_shapes` holds it."""

    def __init__(self, shape_tuple):
        self.shape_tuple = tuple(shape_tuple)

    def __repr__(self):
        return f"ShapeTuple({self.shape_tuple})"

    def __eq__(self, other):
        return isinstance(other, ShapeTuple) and other.shape_tuple == self.shape_tuple

    def __hash__(self):
        return hash(self.shape_tuple)


class TrainingCompleteError(Exception):
    """Raised by a submission to say it is done (AlgoPerf's runner stops the trial)."""


# The submission API's type names, so that annotated signatures import unchanged.
Shape = Union[Tuple[int], Tuple[int, int], Tuple[int, int, int], Tuple[int, int, int, int], ShapeTuple]
ParameterShapeTree = Dict[str, Any]
ParameterContainer = Any
ParameterTypeTree = Dict[str, ParameterType]
ModelAuxiliaryState = Any
ModelInitState = Tuple[ParameterContainer, ModelAuxiliaryState]
OptimizerState = Any
Hyperparameters = Any
RandomState = Any
Tensor = Any
Timing = int
Steps = int
UpdateReturn = Tuple[OptimizerState, ParameterContainer, ModelAuxiliaryState]
InitOptimizerFn = Callable[..., OptimizerState]
UpdateParamsFn = Callable[..., UpdateReturn]
PrepareForEvalFn = Callable[..., UpdateReturn]
DataSelectionFn = Callable[..., Dict[str, Tensor]]
LossFn = Callable[..., Dict[str, Tensor]]
Workload = Any
