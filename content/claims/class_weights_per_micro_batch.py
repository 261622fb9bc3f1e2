"""Claim: With class weights, F.cross_entropy(..., weight=w) and reduction="mean" divides by the sum of the
targets' weights. Dividing each micro-batch's weighted mean by N (a mean of weighted means) gives a
different gradient from the full window's weighted mean, and the rare, heavily weighted samples,
which make their micro-batch heavy, get less weight than their class weight asks for. Summing the
weighted losses and dividing by the window's total weight gives the full-batch gradient; dividing
them by the number of samples instead does not (PyTorch's weighted mean divides by the weights).

Used by: loss-normalization-variable-length's `bug-class-weights-per-micro-batch` and the exam's
`x-weighted-loss-denominator`.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, B = 4, 32
class_weight = torch.tensor([1.0, 1.0, 10.0])
x, y = torch.randn(B, 8), torch.randint(0, 2, (B,))
y[[1, 2, 20]] = 2  # the rare class, in two of the four micro-batches
model = nn.Linear(8, 3)
window = list(zip(x.chunk(N), y.chunk(N), strict=True))


def gradient(run):
    model.zero_grad(set_to_none=True)
    run()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def buggy():  # line 5 of the question
    for xb, yb in window:
        (F.cross_entropy(model(xb), yb, weight=class_weight) / N).backward()


def fixed():
    total_weight = sum(class_weight[yb].sum() for _, yb in window)  # line 3
    for xb, yb in window:
        (F.cross_entropy(model(xb), yb, weight=class_weight, reduction="sum") / total_weight).backward()


full = gradient(lambda: F.cross_entropy(model(x), y, weight=class_weight).backward())


def by_sample_count():  # the sum divided by the number of samples, not by their weights
    for xb, yb in window:
        (F.cross_entropy(model(xb), yb, weight=class_weight, reduction="sum") / B).backward()


assert not torch.allclose(gradient(by_sample_count), full, rtol=1e-3, atol=1e-6)
torch.testing.assert_close(gradient(fixed), full)
gap = ((gradient(buggy) - full).norm() / full.norm()).item()
assert gap > 0.1

# Each sample's share of the loss: w_i / W in the full batch, w_i / (N W_k) in the mean of means.
w = class_weight[y]
micro_weight = torch.cat([class_weight[yb].sum().expand(len(yb)) for _, yb in window])
share_full, share_buggy = w / w.sum(), w / (N * micro_weight)
rare = y == 2
assert torch.all(share_buggy[rare] < share_full[rare])
assert torch.isclose(share_buggy.sum(), torch.tensor(1.0)) and torch.isclose(share_full.sum(), torch.tensor(1.0))
print(
    f"mean of weighted means off by {gap:.0%}; rare samples' share {share_buggy[rare].sum():.2f} "
    f"instead of {share_full[rare].sum():.2f}"
)
