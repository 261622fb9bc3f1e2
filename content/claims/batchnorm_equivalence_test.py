"""Claim of the exam's `bug-batchnorm-equivalence-test`.

The question's test compares the gradient of N accumulated micro-batches with the full-batch
gradient. With BatchNorm1d in training mode (line 1) it fails, however the accumulation is written,
because the layer normalizes with the statistics of its own forward pass. With LayerNorm or
GroupNorm in its place, or with the BatchNorm in eval mode, the same test passes; exact equality
would still fail, so the tolerance of line 7 is right.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N = 4
x, y = torch.randn(32, 16), torch.randint(0, 4, (32,))


def gradients(norm, eval_norm=False):
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(16, 32), norm, nn.ReLU(), nn.Linear(32, 4))
    if eval_norm:
        model[1].running_mean.uniform_(-0.5, 0.5)  # as if pretrained
        model[1].running_var.uniform_(0.5, 1.5)
        model[1].eval()
    full, acc = copy.deepcopy(model), copy.deepcopy(model)
    F.cross_entropy(full(x), y).backward()
    for xb, yb in zip(x.chunk(N), y.chunk(N), strict=True):
        (F.cross_entropy(acc(xb), yb) / N).backward()
    return [(p.grad, q.grad) for p, q in zip(full.parameters(), acc.parameters(), strict=True)]


def test_passes(pairs):  # line 7
    return all(torch.allclose(p, q, rtol=1e-4, atol=1e-6) for p, q in pairs)


assert not test_passes(gradients(nn.BatchNorm1d(32)))
for norm, eval_norm in ((nn.LayerNorm(32), False), (nn.GroupNorm(4, 32), False), (nn.BatchNorm1d(32), True)):
    pairs = gradients(norm, eval_norm)
    assert test_passes(pairs), norm
# Exact equality fails even on a correct setup: summation order differs.
assert not all(torch.equal(p, q) for p, q in gradients(nn.LayerNorm(32)))
print("BatchNorm in training mode fails the test; LayerNorm, GroupNorm and BatchNorm in eval mode pass")
