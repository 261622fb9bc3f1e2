"""Claim: the question's equivalence test (N accumulated micro-batches against the full batch, same
samples, rtol=1e-4, atol=1e-6) fails because of line 1's BatchNorm in training mode, which
normalizes with the statistics of each forward pass: the gradients really differ. With
`nn.LayerNorm(32)`, `nn.GroupNorm(4, 32)` or the BatchNorm in eval mode the same test passes, and
exact equality (no tolerance) fails even then.

Used by: final exam `bug-batchnorm-equivalence-test`.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

N = 4
torch.manual_seed(0)
x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))


def gradients(norm: nn.Module, eval_norm: bool = False):
    """Lines 1-5 of the question with `norm` in place of BatchNorm1d(32)."""
    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(16, 32), norm, nn.ReLU(), nn.Linear(32, 4))
    if eval_norm:
        norm.eval()
    full, acc = copy.deepcopy(model), copy.deepcopy(model)
    F.cross_entropy(full(x), y).backward()
    for xb, yb in zip(x.chunk(N), y.chunk(N), strict=True):
        (F.cross_entropy(acc(xb), yb) / N).backward()
    return list(zip(full.parameters(), acc.parameters(), strict=True))


def test_passes(pairs) -> bool:  # lines 6-7
    return all(torch.allclose(p.grad, q.grad, rtol=1e-4, atol=1e-6) for p, q in pairs)


def relative_difference(pairs) -> float:
    diff = torch.cat([(p.grad - q.grad).flatten() for p, q in pairs]).norm()
    return (diff / torch.cat([p.grad.flatten() for p, _ in pairs]).norm()).item()


batchnorm = gradients(nn.BatchNorm1d(32))
assert not test_passes(batchnorm)
assert relative_difference(batchnorm) > 1e-2, relative_difference(batchnorm)  # a real difference

for name, pairs in {
    "LayerNorm": gradients(nn.LayerNorm(32)),
    "GroupNorm": gradients(nn.GroupNorm(4, 32)),
    "BatchNorm in eval mode": gradients(nn.BatchNorm1d(32), eval_norm=True),
}.items():
    assert test_passes(pairs), name
    assert relative_difference(pairs) < 1e-5, (name, relative_difference(pairs))
    assert not all(torch.equal(p.grad, q.grad) for p, q in pairs), name  # summation order: not bit-equal
print(f"BatchNorm: relative difference {relative_difference(batchnorm):.1e}; the others pass the test")
