"""Claim of normalization-and-accumulation's `bug-batchnorm-frozen-by-requires-grad`.

requires_grad_(False) on the BatchNorm layers (line 4 of the question) only stops training their
weight and bias: in training mode the layers still normalize each micro-batch with its own
statistics and update their running statistics at every micro-batch, so the accumulated gradient
still depends on how the batch is split. Putting the BatchNorm modules in eval() after
model.train() makes them a fixed affine map: the running statistics stay put and the gradient is the
same for micro-batches of 2 and for the whole batch.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
x, y = torch.randn(32, 3, 8, 8), torch.randint(0, 5, (32,))


def pretrained():
    torch.manual_seed(1)
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 5)
    )
    model[1].running_mean.uniform_(-0.5, 0.5)
    model[1].running_var.uniform_(0.5, 1.5)
    return model


def freeze(model, how):
    model.train()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            if how == "requires_grad":
                m.requires_grad_(False)  # line 4 of the question
            else:
                m.eval()  # the fix
    return model


def window_gradient(how, micro):
    model = freeze(pretrained(), how)
    before = model[1].running_mean.clone()
    n = len(x) // micro
    for xb, yb in zip(x.split(micro), y.split(micro), strict=True):
        (F.cross_entropy(model(xb), yb) / n).backward()
    grad = torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None])
    return grad, not torch.equal(before, model[1].running_mean)


def gap(a, b):
    return ((a - b).norm() / b.norm()).item()


# requires_grad_(False): the gradient still changes with the micro-batch, the statistics still move.
g2, moved = window_gradient("requires_grad", 2)
g32, _ = window_gradient("requires_grad", 32)
assert gap(g2, g32) > 1e-2 and moved
# eval(): the same gradient for micro-batches of 2 and for the whole batch, statistics fixed.
e2, moved = window_gradient("eval", 2)
e32, _ = window_gradient("eval", 32)
assert gap(e2, e32) < 1e-5 and not moved
print(f"requires_grad_(False): micro-batch 2 vs 32 differ by {gap(g2, g32):.0%}; eval(): {gap(e2, e32):.0e}")
