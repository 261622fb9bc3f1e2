"""Claim: Comparing one step computed as a single batch (N = 1) with the same step split into N micro-batches
catches the mean-of-micro-batch-means bug on variable-length data: the gap is far above rounding.
On fixed-length, unpadded data the two averages coincide and the same comparison passes, so that
data hides the bug. The token-normalized loop passes on variable-length data.

Used by: loss-normalization-variable-length's `detect-the-bug` and `when-formulas-agree`, and the exam's
`catch-loss-bug-early`, `loss-bug-lessons` and `when-mean-of-means-is-exact`.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
V, T, B, N = 40, 16, 8, 4  # vocabulary, padded length, batch, micro-batches
model = nn.Sequential(nn.Embedding(V, 16), nn.Linear(16, V))
ids, labels = torch.randint(0, V, (B, T)), torch.randint(0, V, (B, T))
variable = labels.clone()
variable[torch.arange(T) >= torch.tensor([2, 15, 3, 12, 5, 16, 1, 9]).unsqueeze(1)] = -100
fixed_length = labels.clone()  # every position scored: the same count in every micro-batch


def token_loss(x, y, reduction):
    return F.cross_entropy(model(x).flatten(0, 1), y.flatten(), ignore_index=-100, reduction=reduction)


def gradient(run):
    model.zero_grad(set_to_none=True)
    run()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def mean_of_means(y):  # the bug: each micro-batch's own token mean, divided by N
    for xb, yb in zip(ids.chunk(N), y.chunk(N), strict=True):
        (token_loss(xb, yb, "mean") / N).backward()


def token_normalized(y):  # the fix: one count for the window
    n = (y != -100).sum()
    for xb, yb in zip(ids.chunk(N), y.chunk(N), strict=True):
        (token_loss(xb, yb, "sum") / n).backward()


def gap(y, loop):
    one_batch = gradient(lambda: token_loss(ids, y, "mean").backward())  # N = 1
    split = gradient(lambda: loop(y))
    return ((split - one_batch).norm() / one_batch.norm()).item()


assert gap(variable, mean_of_means) > 1e-2  # caught: far above rounding
assert gap(fixed_length, mean_of_means) < 1e-5  # hidden by fixed-length data
assert gap(variable, token_normalized) < 1e-5  # the fixed loop passes
print(
    f"mean of means on variable lengths: {gap(variable, mean_of_means):.1e}; on fixed lengths: "
    f"{gap(fixed_length, mean_of_means):.1e}; token-normalized: {gap(variable, token_normalized):.1e}"
)
