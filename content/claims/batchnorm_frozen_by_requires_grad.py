"""Claim: `requires_grad_(False)` on a BatchNorm layer only stops training its weight and bias; in
training mode it still normalizes each micro-batch of 2 with its own statistics and updates its
running statistics N times per step, so the accumulated gradient is not the large batch's. `m.eval()`
after `model.train()` makes the layer apply its fixed running statistics: the running statistics no
longer move and accumulation gives the large batch's gradient. After N training forwards with
momentum m, the running statistics keep (1 - m) ** N of their value from before the window (the
exam's `drawn-running-stat-weight` key), checked for every draw of its m and N.

(torchvision's `FrozenBatchNorm2d`, which the explanation also names, computes from the same fixed
buffers: https://github.com/pytorch/vision/blob/v0.29.1/torchvision/ops/misc.py#L14; torchvision is not a
dependency here, so it is not run.) Used by: guide quiz `bug-batchnorm-frozen-by-requires-grad`
(normalization-and-accumulation), final exam `drawn-running-stat-weight`.
"""

import copy

import torch
from torch import nn

MICRO, N = 2, 16
torch.manual_seed(0)
X, Y = torch.randn(MICRO * N, 3, 8, 8, dtype=torch.float64), torch.randint(0, 5, (MICRO * N,))


def small_resnet_like() -> nn.Module:
    model = nn.Sequential(
        nn.Conv2d(3, 6, 3, padding=1),
        nn.BatchNorm2d(6),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(6, 5),
    ).double()
    with torch.no_grad():  # "pretrained": running statistics from earlier data
        for _ in range(20):
            model(2 * torch.randn(16, 3, 8, 8, dtype=torch.float64) + 1)
    return model


PRETRAINED = small_resnet_like()
loss_fn = nn.CrossEntropyLoss()


def prepare(model: nn.Module, use_eval: bool) -> None:
    """Lines 1-4 of the question, or the fix (`m.eval()` on line 4)."""
    model.train()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            if use_eval:
                m.eval()
            else:
                m.requires_grad_(False)


def accumulated(use_eval: bool) -> tuple[nn.Module, nn.Module]:
    """One window of N micro-batches of 2, and the same samples as one batch of 32, in the same mode."""
    acc, full = copy.deepcopy(PRETRAINED), copy.deepcopy(PRETRAINED)
    prepare(acc, use_eval)
    prepare(full, use_eval)
    for x, y in zip(X.chunk(N), Y.chunk(N), strict=True):
        (loss_fn(acc(x), y) / N).backward()
    loss_fn(full(X), Y).backward()
    return acc, full


def relative_difference(acc: nn.Module, full: nn.Module) -> float:
    pairs = [(p.grad, q.grad) for p, q in zip(acc.parameters(), full.parameters(), strict=True) if p.grad is not None]
    diff = torch.cat([(a - b).flatten() for a, b in pairs]).norm()
    return (diff / torch.cat([b.flatten() for _, b in pairs]).norm()).item()


def batchnorm(model: nn.Module) -> nn.BatchNorm2d:
    return next(m for m in model.modules() if isinstance(m, nn.BatchNorm2d))


# Buggy: weight and bias get no gradient, yet the layer still depends on the micro-batch.
acc, full = accumulated(use_eval=False)
assert batchnorm(acc).weight.grad is None and batchnorm(acc).bias.grad is None
assert relative_difference(acc, full) > 1e-2, relative_difference(acc, full)
before = batchnorm(PRETRAINED).num_batches_tracked.item()
assert batchnorm(acc).num_batches_tracked.item() - before == N  # running statistics updated N times
assert not torch.allclose(batchnorm(acc).running_mean, batchnorm(PRETRAINED).running_mean)

# Fixed: fixed statistics, an affine map per sample; accumulation gives the large batch's gradient.
acc, full = accumulated(use_eval=True)
assert relative_difference(acc, full) < 1e-12, relative_difference(acc, full)
assert torch.equal(batchnorm(acc).running_mean, batchnorm(PRETRAINED).running_mean)
assert batchnorm(acc).num_batches_tracked.item() == before

# The weight the running mean keeps from before the window: shift its start by 1, run the same
# micro-batches, and the end moves by (1 - m) ** N (PyTorch: new = (1 - m) * old + m * batch mean).
for momentum in (0.05, 0.1, 0.2):
    for windows in (2, 4, 8):
        ends = []
        for shift in (0.0, 1.0):
            model = copy.deepcopy(PRETRAINED)
            prepare(model, use_eval=False)
            layer = batchnorm(model)
            layer.momentum = momentum
            with torch.no_grad():
                layer.running_mean += shift
                for x in X.chunk(N)[:windows]:
                    model(x)
            ends.append(layer.running_mean.clone())
        kept = ends[1] - ends[0]
        assert torch.allclose(kept, torch.full_like(kept, (1 - momentum) ** windows), rtol=0, atol=1e-12), kept
print("requires_grad_(False): gradients differ from the large batch, statistics updated 16 times; eval(): exact")
