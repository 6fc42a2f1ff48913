#!/usr/bin/python3
"""PyTorch Python peers of five Pacer workloads, for bench/speed/workload_step_time.sh: the same model
and training loop as `pacer run -w WORKLOAD -a nadamw`, written in PyTorch with its fastest stock
optimizer path, timed per step.

  /usr/bin/python3 bench/speed/workload_peers.py --workload fmnist_resnet --steps 200 --threads 1
  {"workload": "fmnist_resnet", "seconds_per_step": 0.0123, "steps": 200, "threads": 1,
   "flops_per_step": 1981612032, "params": 77754, ...}
  /usr/bin/python3 bench/speed/workload_peers.py --describe   # params and FLOPs of all four, no timing

What is compared: the training step (forward, loss, backward, optimizer update, learning-rate
schedule) of the same network. What is NOT compared: data loading. The peers train on random
tensors of the workload's shapes (a small pool of pre-generated batches, cycled), while pacer
draws its batches from the real datasets (Fashion-MNIST, its k-space reconstruction, the fortunes
corpus) by index_select inside its submission clock, so pacer's time includes that (small) cost.

The models mirror the C++ ones exactly (same layer sizes, parameters registered in the same order
under the same names, same ops and the same default initializations, which LibTorch and PyTorch
share):
  fmnist_mlp     src/models/mlp.cpp (784-128-128-10, ReLU), batch 256, input [N,1,28,28] flattened
  fmnist_resnet  src/models/resnet.cpp (ResNetOptions defaults), batch 128, input [N,1,28,28]
  fmnist_vit     src/models/vision_transformer.cpp + transformer_block.cpp, batch 128, [N,1,28,28]
  fmnist_recon   src/models/unet.cpp (UNetOptions defaults), batch 32, [N,1,28,28] -> [N,1,28,28],
                 loss = mean absolute error per image, then the mean over the batch
  fortunes_lm    src/models/char_transformer.cpp, batch 32, int64 [N,64] -> logits [N,64,256],
                 loss = cross-entropy per byte, mean per window, then the mean over the batch
Classification loss: cross-entropy, no label smoothing; dropout 0 (nadamw's defaults).

Optimizer: pacer's nadamw is AlgoPerf's NAdamW on one flat parameter buffer. The peer uses
torch.optim.AdamW(foreach=True): torch 1.13's fastest CPU path (its `fused=` flag does not exist
in Debian's 1.13 build, and is CUDA-only where it exists), with nadamw's default hyperparameters
(lr 0.005, betas 0.9/0.999, eps 1e-8, weight decay 0.01) and its warmup + cosine schedule
(warmup 5% of the workload's step hint) through LambdaLR; gradients are cleared with
zero_grad(set_to_none=True). AdamW and NAdamW differ by one extra moment update per element
(elementwise, cheap next to the models' matmuls).

flops_per_step: the training step's FLOPs counted analytically, matmul-like work only: in the
forward pass 2 * MACs of every nn.Linear, nn.Conv2d and nn.ConvTranspose2d (forward hooks) and of
the attention products q @ k^T and softmax(.) @ v (counted explicitly; the causal mask does not
reduce them, the full products are computed); the backward pass counted as 2x the forward (input
and weight gradients), so flops_per_step = 3 * forward. Elementwise ops (norms, activations,
softmax, residual adds, bias adds, pooling, the loss, the embedding gather) and the optimizer are
ignored. The first conv/linear layer of the image models needs no input gradient, so 3x overcounts
it by its forward FLOPs (reported as `first_layer_forward_flops`; a small share of the step).
"""
import argparse
import json
import math
import time

import torch
import torch.nn.functional as F
from torch import nn

LR, BETA1, BETA2, EPS, WEIGHT_DECAY, WARMUP_FACTOR = 0.005, 0.9, 0.999, 1e-8, 0.01, 0.05

# ---------------------------------------------------------------------------------------------
# FLOP counting: forward hooks on Linear/Conv2d/ConvTranspose2d plus the attention matmuls.

_counter = None  # a one-element list while counting, else None


def _count(macs):
    if _counter is not None:
        _counter[0] += int(macs)


def _linear_hook(module, inputs, output):
    _count(output.numel() * module.in_features)


def _conv_hook(module, inputs, output):
    k = module.kernel_size[0] * module.kernel_size[1]
    _count(output.numel() * (module.in_channels // module.groups) * k)


def _conv_transpose_hook(module, inputs, output):
    # Every input pixel scatters in_channels x out_channels x kernel taps.
    x = inputs[0]
    k = module.kernel_size[0] * module.kernel_size[1]
    _count(x.shape[0] * x.shape[2] * x.shape[3] * module.in_channels * (module.out_channels // module.groups) * k)


def forward_macs(model, forward):
    """MACs of one forward pass (`forward()` runs it), counted with hooks; no grad, eval mode."""
    global _counter
    handles = []
    for m in model.modules():
        if isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(_linear_hook))
        elif isinstance(m, nn.Conv2d):
            handles.append(m.register_forward_hook(_conv_hook))
        elif isinstance(m, nn.ConvTranspose2d):
            handles.append(m.register_forward_hook(_conv_transpose_hook))
    was_training = model.training
    model.eval()
    _counter = [0]
    try:
        with torch.no_grad():
            forward()
        return _counter[0]
    finally:
        _counter = None
        for h in handles:
            h.remove()
        model.train(was_training)


# ---------------------------------------------------------------------------------------------
# Models, mirroring src/models/*.cpp.

def conv3(in_c, out_c, kernel, stride):
    """resnet.cpp conv(): padding kernel/2, no bias."""
    return nn.Conv2d(in_c, out_c, kernel, stride=stride, padding=kernel // 2, bias=False)


def batch_norm(c, momentum=0.1):
    return nn.BatchNorm2d(c, eps=1e-5, momentum=momentum)


class MLP(nn.Module):
    """mlp.cpp with fmnist_mlp's options: 784-128-128-10, ReLU, the image flattened."""

    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.out = nn.Linear(784, 128), nn.Linear(128, 128), nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x.reshape(x.shape[0], -1)))
        return self.out(F.relu(self.fc2(x)))


class ResNet(nn.Module):
    """src/models/resnet.cpp with ResNetOptions defaults: stem 3x3/2 1->16, BN, ReLU; stages
    16-32-64, one basic block each (conv3x3-BN-ReLU-conv3x3-BN + shortcut, ReLU), the first block
    of stages 1 and 2 at stride 2 with a 1x1/2 conv + BN projection; bn2 scale initialized to 0;
    mean over H,W; Linear(64, 10)."""

    def __init__(self, in_channels=1, widths=(16, 32, 64), blocks_per_stage=1, num_classes=10,
                 last_bn_scale_init=0.0, bn_momentum=0.1):
        super().__init__()
        # Registration order as in the C++ constructor (it fixes parameters() order).
        self.stem = conv3(in_channels, widths[0], 3, 2)
        self.stem_bn = batch_norm(widths[0], bn_momentum)
        self.blocks = []
        c_in = widths[0]
        for stage, c_out in enumerate(widths):
            for b in range(blocks_per_stage):
                stride = 2 if stage > 0 and b == 0 else 1
                prefix = f"stage{stage}_block{b}_"
                block = {}
                for name, module in (("conv1", conv3(c_in, c_out, 3, stride)), ("bn1", batch_norm(c_out, bn_momentum)),
                                     ("conv2", conv3(c_out, c_out, 3, 1)), ("bn2", batch_norm(c_out, bn_momentum))):
                    self.add_module(prefix + name, module)
                    block[name] = module
                if stride != 1 or c_in != c_out:
                    for name, module in (("projection", conv3(c_in, c_out, 1, stride)),
                                         ("projection_bn", batch_norm(c_out, bn_momentum))):
                        self.add_module(prefix + name, module)
                        block[name] = module
                with torch.no_grad():
                    block["bn2"].weight.fill_(last_bn_scale_init)
                self.blocks.append(block)
                c_in = c_out
        self.head = nn.Linear(c_in, num_classes)

    @staticmethod
    def block_forward(block, x):
        y = F.relu(block["bn1"](block["conv1"](x)))
        y = block["bn2"](block["conv2"](y))
        shortcut = block["projection_bn"](block["projection"](x)) if "projection" in block else x
        return F.relu(y + shortcut)

    def forward(self, x):
        x = F.relu(self.stem_bn(self.stem(x)))
        for block in self.blocks:
            x = self.block_forward(block, x)
        x = x.mean((2, 3))
        return self.head(x)


class Norm(nn.Module):
    """transformer_block.cpp Norm (layer_norm kind): parameters `scale` (ones), `bias` (zeros)."""

    def __init__(self, dim):
        super().__init__()
        self.dim = dim
        self.scale = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))

    def forward(self, x):
        return F.layer_norm(x, (self.dim,), self.scale, self.bias, 1e-5)


class TransformerBlock(nn.Module):
    """transformer_block.cpp, pre-norm, LayerNorm, plain GELU MLP (the defaults of both workloads)."""

    def __init__(self, dim, heads, mlp_dim, causal):
        super().__init__()
        assert dim % heads == 0
        self.dim, self.heads, self.causal = dim, heads, causal
        self.norm1 = Norm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm2 = Norm(dim)
        self.up = nn.Linear(dim, mlp_dim)
        self.down = nn.Linear(mlp_dim, dim)

    def attention(self, x):
        n, t = x.shape[0], x.shape[1]
        h = self.heads
        d = self.dim // h
        qkv = self.qkv(x).view(n, t, 3, h, d).permute(2, 0, 3, 1, 4)  # [3, N, H, T, d]
        q, k, v = qkv[0], qkv[1], qkv[2]
        _count(n * h * t * t * d)  # q @ k^T
        scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(d))
        if self.causal:
            future = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(future, float("-inf"))
        _count(n * h * t * t * d)  # softmax(scores) @ v
        y = torch.matmul(torch.softmax(scores, -1), v)  # [N, H, T, d]
        return self.out(y.transpose(1, 2).reshape(n, t, self.dim))

    def mlp(self, x):
        return self.down(F.gelu(self.up(x)))

    def forward(self, x):
        y = x + self.attention(self.norm1(x))
        return y + self.mlp(self.norm2(y))


class VisionTransformer(nn.Module):
    """vision_transformer.cpp with VisionTransformerOptions defaults: 28x28x1 images, 7x7 patches
    (16 tokens), Linear(49, 64) patch embedding + learned positions [1,16,64] (randn * 0.02),
    3 blocks (dim 64, 4 heads, mlp 128, pre-LN), final LayerNorm, mean over tokens, Linear(64, 10)."""

    def __init__(self, image_size=28, channels=1, patch=7, depth=3, num_classes=10, dim=64, heads=4, mlp_dim=128):
        super().__init__()
        self.image_size, self.channels, self.patch = image_size, channels, patch
        side = image_size // patch
        self.tokens = side * side
        self.position = nn.Parameter(torch.randn(1, self.tokens, dim) * 0.02)
        self.patch_embed = nn.Linear(channels * patch * patch, dim)
        self.blocks = []
        for i in range(depth):
            block = TransformerBlock(dim, heads, mlp_dim, causal=False)
            self.add_module(f"block{i}", block)
            self.blocks.append(block)
        self.final_norm = Norm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, inputs):
        n, c, p = inputs.shape[0], self.channels, self.patch
        side = self.image_size // p
        patches = inputs.reshape(n, c, side, p, side, p).permute(0, 2, 4, 1, 3, 5).reshape(n, self.tokens, c * p * p)
        x = self.patch_embed(patches) + self.position
        for block in self.blocks:
            x = block(x)
        x = self.final_norm(x)
        x = x.mean(1)
        return self.head(x)


class UNet(nn.Module):
    """unet.cpp with UNetOptions defaults: channels 8-16-32 (28 -> 14 -> 7), per level two
    [conv3x3 (no bias) -> instance norm (no affine, eps 1e-5) -> leaky ReLU 0.2]; 2x2 average
    pooling down; ConvTranspose2d(2, stride 2, no bias) up, concatenated with the skip (upsampled
    first); final Conv2d 1x1 with bias to one channel."""

    def __init__(self, in_channels=1, out_channels=1, channels=(8, 16, 32)):
        super().__init__()
        self.levels = len(channels)
        self.layers, self.ups = [], []

        def make_layer(name, c_in, c_out):
            conv = nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
            self.add_module(name, conv)
            self.layers.append(conv)

        c_in = in_channels
        for level, c in enumerate(channels):
            make_layer(f"level{level}_conv1", c_in, c)
            make_layer(f"level{level}_conv2", c, c)
            c_in = c
        for level in range(len(channels) - 2, -1, -1):
            up = nn.ConvTranspose2d(c_in, channels[level], 2, stride=2, bias=False)
            self.add_module(f"up{level}_transpose", up)
            self.ups.append(up)
            make_layer(f"up{level}_conv1", 2 * channels[level], channels[level])
            make_layer(f"up{level}_conv2", channels[level], channels[level])
            c_in = channels[level]
        self.output = nn.Conv2d(c_in, out_channels, 1)

    def layer_forward(self, i, x):
        y = self.layers[i](x)
        y = F.instance_norm(y, eps=1e-5)  # use_input_stats, no running stats, no affine
        return F.leaky_relu(y, 0.2)

    def pair_forward(self, first, x):
        return self.layer_forward(first + 1, self.layer_forward(first, x))

    def forward(self, inputs):
        skips = []
        x = inputs
        for level in range(self.levels - 1):
            x = self.pair_forward(2 * level, x)
            skips.append(x)
            x = F.avg_pool2d(x, 2)
        x = self.pair_forward(2 * (self.levels - 1), x)
        for up in range(self.levels - 1):
            skip = skips[len(skips) - 1 - up]
            x = self.ups[up](x)
            x = torch.cat((x, skip), 1)
            x = self.pair_forward(2 * self.levels + 2 * up, x)
        return self.output(x)


class CharTransformer(nn.Module):
    """char_transformer.cpp with CharTransformerOptions defaults: byte embedding [256, 64] and
    positions [64, 64] (both randn * 0.02), 2 causal blocks (dim 64, 4 heads, mlp 256, pre-LN),
    final LayerNorm, Linear(64, 256)."""

    def __init__(self, vocab=256, context=64, depth=2, dim=64, heads=4, mlp_dim=256):
        super().__init__()
        self.context = context
        self.embedding = nn.Parameter(torch.randn(vocab, dim) * 0.02)
        self.position = nn.Parameter(torch.randn(context, dim) * 0.02)
        self.blocks = []
        for i in range(depth):
            block = TransformerBlock(dim, heads, mlp_dim, causal=True)
            self.add_module(f"block{i}", block)
            self.blocks.append(block)
        self.final_norm = Norm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, inputs):
        t = inputs.shape[1]
        assert t <= self.context
        x = F.embedding(inputs, self.embedding) + self.position.narrow(0, 0, t)
        for block in self.blocks:
            x = block(x)
        return self.head(self.final_norm(x))


# ---------------------------------------------------------------------------------------------
# Workloads: model, batch shapes, loss, step hint (src/workloads/registry.cpp), and the counts
# worked out by hand from the C++ code (asserted against the PyTorch models).

def classification_loss(logits, y):
    # classification_workload.cpp: cross_entropy_loss(Reduction::None, label_smoothing 0), then mean
    return F.cross_entropy(logits, y, reduction="none").mean()


def reconstruction_loss(out, y):
    # reconstruction_workload.cpp: (out - y).abs().flatten(1).mean(1), then mean
    return (out - y).abs().flatten(1).mean(1).mean()


def lm_loss(logits, y):
    # language_model_workload.cpp: per-token cross-entropy, .view(n, t).mean(1), then mean
    n, t, v = logits.shape
    return F.cross_entropy(logits.reshape(n * t, v), y.reshape(n * t), reduction="none").view(n, t).mean(1).mean()


def images_batch(n, gen):
    return torch.randn(n, 1, 28, 28, generator=gen), torch.randint(0, 10, (n,), generator=gen)


def recon_batch(n, gen):
    return torch.randn(n, 1, 28, 28, generator=gen), torch.rand(n, 1, 28, 28, generator=gen)


def lm_batch(n, gen):
    return torch.randint(0, 256, (n, 64), generator=gen), torch.randint(0, 256, (n, 64), generator=gen)


# Hand counts (see the comments for the arithmetic).
#  resnet params: stem 1*16*9=144, stem_bn 32; stage0 (16->16, no projection) 2304+32+2304+32=4672;
#    stage1 (16->32, /2) 4608+64+9216+64 + projection 512+64 = 14528; stage2 (32->64, /2)
#    18432+128+36864+128 + 2048+128 = 57728; head 64*10+10=650 -> 77754.
#  resnet MACs/example: stem 14*14*16*9=28224; stage0 2 x 196*16*144=451584; stage1 (7x7)
#    49*32*144=225792 + 49*32*288=451584 + 1x1 49*32*16=25088; stage2 (4x4) 16*64*288=294912 +
#    16*64*576=589824 + 16*64*32=32768; head 640 -> 2552000.
#  vit params: position 16*64=1024; patch_embed 49*64+64=3200; block: 2 norms 2*128, qkv 64*192+192
#    =12480, out 4160, up 64*128+128=8320, down 128*64+64=8256 -> 33472, x3 = 100416; final norm 128;
#    head 650 -> 105418.
#  vit MACs/example (16 tokens): patch_embed 16*49*64=50176; block: qkv 16*64*192=196608, attention
#    2 x 4*16*16*16=32768, out 16*64*64=65536, up and down 2 x 16*64*128=262144 -> 557056, x3;
#    head 640 -> 1721984.
#  unet params: level0 1*8*9=72 + 8*8*9=576; level1 8*16*9=1152 + 16*16*9=2304; level2 16*32*9=4608 +
#    32*32*9=9216; up1 transpose 32*16*4=2048, 32*16*9=4608, 2304; up0 transpose 16*8*4=512,
#    16*8*9=1152, 576; output 8+1=9 -> 29137.
#  unet MACs/example: level0 784*8*9=56448 + 784*8*72=451584; level1 196*16*72=225792 +
#    196*16*144=451584; level2 49*32*144=225792 + 49*32*288=451584; up1 196*16*32=100352 +
#    196*16*288=903168 + 451584; up0 784*8*16=100352 + 784*8*144=903168 + 451584; output 784*8=6272
#    -> 4779264.
#  lm params: embedding 256*64=16384, position 64*64=4096; block: norms 256, qkv 12480, out 4160,
#    up 64*256+256=16640, down 256*64+64=16448 -> 49984, x2; final norm 128; head 64*256+256=16640
#    -> 137216.
#  lm MACs/example (64 tokens): block: qkv 64*64*192=786432, attention 2 x 4*64*64*16=524288,
#    out 64*64*64=262144, up and down 2 x 64*64*256=2097152 -> 3670016, x2; head 64*64*256=1048576
#    -> 8388608.
WORKLOADS = {
    # mlp MACs/example: 784*128 + 128*128 + 128*10 = 118016; params 100480 + 16512 + 1290 = 118282.
    "fmnist_mlp": dict(model=MLP, batch=images_batch, loss=classification_loss, batch_size=256,
                       step_hint=2000, params=118282, macs_per_example=118016, first_layer="fc1"),
    "fmnist_resnet": dict(model=ResNet, batch=images_batch, loss=classification_loss, batch_size=128,
                          step_hint=1000, params=77754, macs_per_example=2552000, first_layer="stem"),
    "fmnist_vit": dict(model=VisionTransformer, batch=images_batch, loss=classification_loss, batch_size=128,
                       step_hint=1000, params=105418, macs_per_example=1721984, first_layer="patch_embed"),
    "fmnist_recon": dict(model=UNet, batch=recon_batch, loss=reconstruction_loss, batch_size=32,
                         step_hint=1000, params=29137, macs_per_example=4779264, first_layer="level0_conv1"),
    "fortunes_lm": dict(model=CharTransformer, batch=lm_batch, loss=lm_loss, batch_size=32,
                        step_hint=1500, params=137216, macs_per_example=8388608, first_layer=None),
}


def lr_factor(step_hint):
    """schedules.cpp warmup_cosine with warmup = int(0.05 * step_hint)."""
    warmup = int(WARMUP_FACTOR * step_hint)
    decay = max(1, step_hint - warmup)

    def factor(step):
        if step < warmup:
            return step / warmup
        t = step - warmup
        return 0.0 if t >= decay else 0.5 * (1.0 + math.cos(math.pi * t / decay))

    return factor


def describe(name, batch_size):
    """Params and FLOPs of one training step, checked against the hand counts."""
    w = WORKLOADS[name]
    torch.manual_seed(1)
    model = w["model"]()
    params = sum(p.numel() for p in model.parameters())
    if params != w["params"]:
        raise SystemExit(f"{name}: {params} parameters, the C++ model has {w['params']}")
    x, _ = w["batch"](batch_size, torch.Generator().manual_seed(0))
    macs = forward_macs(model, lambda: model(x))
    if macs != w["macs_per_example"] * batch_size:
        raise SystemExit(f"{name}: counted {macs} forward MACs, expected {w['macs_per_example']} x {batch_size}")
    # The first matmul layer's forward MACs (its input needs no gradient, so 3x overcounts it by
    # one forward); none for the LM, whose first layer is the embedding gather.
    first_macs = 0
    if w["first_layer"]:
        first = dict(model.named_modules())[w["first_layer"]]
        seen = []
        handle = first.register_forward_hook(lambda m, i, o: seen.append(
            o.numel() * (m.in_features if isinstance(m, nn.Linear) else m.in_channels * m.kernel_size[0] * m.kernel_size[1])))
        with torch.no_grad():
            model(x)
        handle.remove()
        first_macs = sum(seen)
    return {"workload": name, "batch_size": batch_size, "params": params,
            "forward_flops": 2 * macs, "flops_per_step": 3 * 2 * macs,
            "first_layer_forward_flops": 2 * first_macs}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workload", choices=sorted(WORKLOADS))
    parser.add_argument("--steps", type=int, default=200, help="timed steps")
    parser.add_argument("--warmup", type=int, default=20, help="untimed steps before the timed ones")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=0, help="default: the workload's (128 or 32)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pool", type=int, default=8, help="pre-generated random batches, cycled")
    parser.add_argument("--device", default="cpu", help="cpu or cuda[:N] (tools/gpu/gpu_check.sh); times wait for the device")
    parser.add_argument("--compile", action="store_true", help="torch.compile the model (PyTorch 2.x)")
    parser.add_argument("--describe", action="store_true",
                        help="print params and FLOPs per step (one JSON line per workload, or --workload's), no timing")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    if args.describe:
        for name in [args.workload] if args.workload else WORKLOADS:
            print(json.dumps(describe(name, args.batch_size or WORKLOADS[name]["batch_size"])))
        return
    if not args.workload:
        parser.error("--workload is required (or --describe)")
    if args.steps < 1:
        parser.error("--steps must be positive")

    w = WORKLOADS[args.workload]
    batch_size = args.batch_size or w["batch_size"]
    info = describe(args.workload, batch_size)

    device = torch.device(args.device)
    gen = torch.Generator().manual_seed(args.seed)
    pool = [tuple(t.to(device) for t in w["batch"](batch_size, gen)) for _ in range(max(1, args.pool))]
    torch.manual_seed(args.seed)
    model = w["model"]().to(device)
    model.train()
    forward = model
    if args.compile:
        if not hasattr(torch, "compile"):
            raise SystemExit(f"--compile needs PyTorch 2 (this is {torch.__version__})")
        forward = torch.compile(model)

    def synchronize():
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    loss_fn = w["loss"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=LR, betas=(BETA1, BETA2), eps=EPS,
                                  weight_decay=WEIGHT_DECAY, foreach=True)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor(w["step_hint"]))
    loss = None

    def train_step(step):
        nonlocal loss
        x, y = pool[step % len(pool)]
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(forward(x), y)
        loss.backward()
        optimizer.step()
        scheduler.step()

    for step in range(args.warmup):
        train_step(step)
    synchronize()
    start, cpu_start = time.perf_counter(), time.process_time()
    for step in range(args.warmup, args.warmup + args.steps):
        train_step(step)
    synchronize()
    seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu_start
    print(json.dumps({
        "workload": args.workload, "impl": "pytorch_python" + ("_compiled" if args.compile else ""),
        "torch": torch.__version__, "device": str(device),
        "optimizer": "AdamW(foreach=True)", "seconds_per_step": round(seconds / args.steps, 9),
        "steps": args.steps, "warmup_steps": args.warmup, "threads": torch.get_num_threads(),
        "batch_size": batch_size, "flops_per_step": info["flops_per_step"], "forward_flops": info["forward_flops"],
        "first_layer_forward_flops": info["first_layer_forward_flops"], "params": info["params"],
        "cpu_seconds_per_step": round(cpu_seconds / args.steps, 9), "final_loss": round(loss.item(), 6)}))


if __name__ == "__main__":
    main()
