"""The small float64 model the state-of-the-art optimizer goldens train (shared by the generators).

Parameters, in this order (the C++ test, tests/sota_optimizers_test.cpp, rebuilds the same model):

  name         type               shape
  conv.weight  conv_weight        [4, 2, 3, 3]
  conv.bias    bias               [4]
  fc.weight    weight             [6, 36]
  fc.bias      bias               [6]
  gain         layer_norm_scale   [6]
  head.weight  weight             [3, 6]      (the output head)
  head.bias    bias               [3]

Forward (inputs x [4, 2, 5, 5], targets y [4, 3]):
  h = tanh(conv2d(x, conv.weight, conv.bias))      stride 1, no padding -> [4, 4, 3, 3]
  h = h.flatten(1)                                 [4, 36]
  h = tanh(linear(h, fc.weight, fc.bias)) * gain   [4, 6]
  out = linear(h, head.weight, head.bias)          [4, 3]
  loss = mse_loss(out, y)                          mean over all elements

Every optimizer case starts from the same initial parameters and sees the gradient of this loss on
the same batch at every step (full-batch training), so any difference is the update rule's.
"""
import torch

torch.set_default_dtype(torch.float64)
torch.set_num_threads(1)

PARAMETERS = [
    ("conv.weight", "conv_weight", (4, 2, 3, 3)),
    ("conv.bias", "bias", (4,)),
    ("fc.weight", "weight", (6, 36)),
    ("fc.bias", "bias", (6,)),
    ("gain", "layer_norm_scale", (6,)),
    ("head.weight", "weight", (3, 6)),
    ("head.bias", "bias", (3,)),
]
INPUT_SHAPE = (4, 2, 5, 5)
TARGET_SHAPE = (4, 3)
CHECKPOINTS = [1, 2, 5, 10, 20, 25]  # steps after which the parameters are recorded
STEPS = CHECKPOINTS[-1]


def make_data():
    """Inputs, targets and initial parameters (a list of tensors in PARAMETERS order)."""
    g = torch.Generator().manual_seed(20261123)
    x = torch.randn(INPUT_SHAPE, generator=g)
    y = torch.randn(TARGET_SHAPE, generator=g)
    params = []
    for name, _, shape in PARAMETERS:
        if name == "gain":
            p = 1.0 + 0.1 * torch.randn(shape, generator=g)
        else:
            fan_in = 1
            for d in shape[1:]:
                fan_in *= d
            p = torch.randn(shape, generator=g) / (max(fan_in, 1) ** 0.5)
        params.append(p)
    return x, y, params


def loss_fn(params, x, y):
    conv_w, conv_b, fc_w, fc_b, gain, head_w, head_b = params
    h = torch.tanh(torch.nn.functional.conv2d(x, conv_w, conv_b)).flatten(1)
    h = torch.tanh(torch.nn.functional.linear(h, fc_w, fc_b)) * gain
    out = torch.nn.functional.linear(h, head_w, head_b)
    return torch.nn.functional.mse_loss(out, y)


def gradients(params, x, y):
    """Loss and the gradient of every parameter at `params` (tensors are not modified)."""
    leaves = [p.detach().clone().requires_grad_(True) for p in params]
    loss = loss_fn(leaves, x, y)
    grads = torch.autograd.grad(loss, leaves)
    return loss.item(), [g.detach() for g in grads]


def flat(tensors):
    """JSON form of a list of tensors: one flat row-major list per tensor (None stays None)."""
    return [None if t is None else [float(v) for v in t.detach().reshape(-1).tolist()] for t in tensors]


def model_record():
    x, y, params = make_data()
    return {
        "parameters": [
            {"name": n, "type": t, "shape": list(s), "values": flat([p])[0]}
            for (n, t, s), p in zip(PARAMETERS, params)
        ],
        "inputs": flat([x])[0],
        "input_shape": list(INPUT_SHAPE),
        "targets": flat([y])[0],
        "target_shape": list(TARGET_SHAPE),
        "checkpoints": CHECKPOINTS,
    }
