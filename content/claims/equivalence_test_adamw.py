"""Claim: The question's test compares the project's loop at N = 4 with the same loop at N = 1 over two
optimizer steps. With AdamW (line 3) it still passes after someone deletes the `/ n` of line 6,
because Adam divides each coordinate by a running estimate of its own size and cancels the factor N.
With plain SGD, the same test fails on that loop and passes on the correct one. It compares the loop
with itself, though: a loop that never calls zero_grad() passes it even with SGD, since both runs
carry the same stale gradient; that takes a comparison with an independently written reference.

Used by: future-and-checklist's `bug-equivalence-test-adamw`.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
base = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
data = [(torch.randn(16, 6), torch.randn(16, 1)) for _ in range(2)]


def train(n, optimizer_class, lr, divide=True, zero_grad=True):
    model = copy.deepcopy(base)
    opt = optimizer_class(model.parameters(), lr=lr)
    for x, y in data:
        for xb, yb in zip(x.chunk(n), y.chunk(n), strict=True):
            loss = F.mse_loss(model(xb), yb)
            (loss / n if divide else loss).backward()
        opt.step()
        if zero_grad:
            opt.zero_grad(set_to_none=True)
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def test_passes(optimizer_class, lr, **bug):
    # Line 10 of the question
    return torch.allclose(
        train(4, optimizer_class, lr, **bug), train(1, optimizer_class, lr, **bug), rtol=1e-4, atol=1e-5
    )


adamw, sgd = (torch.optim.AdamW, 1e-2), (torch.optim.SGD, 0.1)

# The question's test, with AdamW: blind to the deleted division.
assert test_passes(*adamw, divide=False)
# With SGD the same test catches it, and passes the correct loop.
assert not test_passes(*sgd, divide=False)
assert test_passes(*sgd)
# The limit of comparing the loop with itself: a missing zero_grad() passes even with SGD.
assert test_passes(*sgd, zero_grad=False)
# Yet that loop is wrong: its weights differ from the correct loop's after two steps.
assert not torch.allclose(train(4, *sgd, zero_grad=False), train(4, *sgd), rtol=1e-4, atol=1e-5)
print("AdamW hides the missing division; SGD catches it; neither catches a missing zero_grad here")
