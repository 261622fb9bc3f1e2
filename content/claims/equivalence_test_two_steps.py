"""Claim: An equivalence test for an accumulation loop needs two things:
- a reference written independently of the loop under test (here: one full-batch forward and
  backward per window, through torch.autograd.grad, so no gradient buffer can carry over), and
- two or more optimizer steps, with plain SGD.

A missing zero_grad() passes a one-step test (the first window starts from empty buffers) and
passes any test that compares the loop with itself at N = 1 (both runs carry the same stale
gradient); only the two-step comparison with the independent reference fails. Missing division by
N and zero_grad() inside the micro-batch loop fail every comparison with SGD. The correct loop passes
all of them.

Used by: future-and-checklist's `equivalence-test` and the exam's `verify-accumulation` and
`x-equivalence-test-order`.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
LR, N = 0.1, 4
base = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
windows = [(torch.randn(16, 6), torch.randn(16, 1)) for _ in range(2)]


def fresh():
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
    model.load_state_dict(base.state_dict())
    return model


def weights(model):
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def loop_under_test(n, steps, bug=None):
    """The project's accumulation loop, with one bug put in on purpose."""
    model = fresh()
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    for x, y in windows[:steps]:
        for xb, yb in zip(x.chunk(n), y.chunk(n), strict=True):
            if bug == "zero_grad inside":
                optimizer.zero_grad()
            loss = F.mse_loss(model(xb), yb)
            (loss if bug == "no division" else loss / n).backward()
        optimizer.step()
        if bug != "no zero_grad":
            optimizer.zero_grad()
    return weights(model)


def reference(steps):
    """What the recipe means, written without accumulation and without .grad buffers."""
    model = fresh()
    params = list(model.parameters())
    for x, y in windows[:steps]:
        grads = torch.autograd.grad(F.mse_loss(model(x), y), params)
        with torch.no_grad():
            for p, g in zip(params, grads, strict=True):
                p -= LR * g
    return weights(model)


def agrees(a, b):
    return torch.allclose(a, b, rtol=1e-5, atol=1e-6)


def one_step_vs_reference(bug):
    return agrees(loop_under_test(N, 1, bug), reference(1))


def two_steps_vs_reference(bug):
    return agrees(loop_under_test(N, 2, bug), reference(2))


def two_steps_vs_same_loop_at_n1(bug):
    return agrees(loop_under_test(N, 2, bug), loop_under_test(1, 2, bug))


# The correct loop passes every test.
assert one_step_vs_reference(None) and two_steps_vs_reference(None) and two_steps_vs_same_loop_at_n1(None)

# A missing zero_grad(): only the two-step test against the independent reference catches it.
assert one_step_vs_reference("no zero_grad")
assert two_steps_vs_same_loop_at_n1("no zero_grad")
assert not two_steps_vs_reference("no zero_grad")

# The other bugs fail every comparison.
for bug in ("no division", "zero_grad inside"):
    assert not one_step_vs_reference(bug)
    assert not two_steps_vs_reference(bug)
    assert not two_steps_vs_same_loop_at_n1(bug)

# Exact equality is the wrong check: the correct loop differs from the reference by rounding only.
correct, expected = loop_under_test(N, 2), reference(2)
assert not torch.equal(correct, expected) and agrees(correct, expected)
print("missing zero_grad: passes the one-step test and the same-loop test, fails the two-step reference test")
