"""Claim: without `/ N` on the loss, `.grad` holds N times the full-batch gradient after a window;
with SGD that is an N times larger learning rate, Adam mostly cancels the factor, and the norm is N
times too large, so a clip at 1.0 fires where the right gradient would not be clipped.

Used by: final exam `bug-forgot-divide-by-n`, `forgot-to-divide-sgd-vs-adam`, `drawn-loss-scale-factor`,
`x-accumulation-vs-larger-lr`; what-is-gradient-accumulation quiz `same-gradient`.
"""

import torch
from torch import nn

N, MICRO = 4, 8
torch.manual_seed(0)
X, Y = torch.randn(N * MICRO, 5, dtype=torch.float64), torch.randn(N * MICRO, 1, dtype=torch.float64)
START = nn.Linear(5, 1).double()
with torch.no_grad():  # small weights, so the right gradient's norm is below the clip threshold
    START.weight.mul_(0.1)
    START.bias.zero_()
loss_fn = nn.MSELoss()


def window_gradient(divide: bool) -> tuple[nn.Module, list[torch.Tensor]]:
    model = nn.Linear(5, 1).double()
    model.load_state_dict(START.state_dict())
    for x, y in zip(X.chunk(N), Y.chunk(N), strict=True):
        loss = loss_fn(model(x), y)
        (loss / N if divide else loss).backward()
    return model, [p.grad.clone() for p in model.parameters()]


def full_batch_gradient() -> list[torch.Tensor]:
    model = nn.Linear(5, 1).double()
    model.load_state_dict(START.state_dict())
    loss_fn(model(X), Y).backward()
    return [p.grad for p in model.parameters()]


def norm(grads: list[torch.Tensor]) -> float:
    return torch.cat([g.flatten() for g in grads]).norm().item()


def weights_after_one_step(divide: bool, make_optimizer) -> torch.Tensor:
    model, _ = window_gradient(divide)
    make_optimizer(model.parameters()).step()
    return torch.cat([p.detach().flatten() for p in model.parameters()])


_, fixed = window_gradient(divide=True)
_, buggy = window_gradient(divide=False)
reference = full_batch_gradient()

# The fixed loop gives the full-batch gradient; the buggy one N times that.
for f, b, r in zip(fixed, buggy, reference, strict=True):
    assert torch.allclose(f, r, rtol=1e-12, atol=1e-14)
    assert torch.allclose(b, N * r, rtol=1e-12, atol=1e-14)
assert abs(norm(buggy) - N * norm(fixed)) < 1e-12 * norm(buggy)

# Clipping at 1.0: the right gradient is below the threshold, the buggy one above it.
assert norm(fixed) < 1.0 < norm(buggy), (norm(fixed), norm(buggy))
model, _ = window_gradient(divide=False)
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
assert abs(norm([p.grad for p in model.parameters()]) - 1.0) < 1e-5  # clipped (clip_grad_norm_ adds 1e-6 to the norm)

# SGD: the buggy step is the fixed step with an N times larger learning rate.
lr = 0.01
start = torch.cat([p.detach().flatten() for p in START.parameters()])
sgd_buggy = weights_after_one_step(False, lambda ps: torch.optim.SGD(ps, lr=lr))
sgd_fixed_n_lr = weights_after_one_step(True, lambda ps: torch.optim.SGD(ps, lr=N * lr))
sgd_fixed = weights_after_one_step(True, lambda ps: torch.optim.SGD(ps, lr=lr))
assert torch.allclose(sgd_buggy, sgd_fixed_n_lr, rtol=1e-12, atol=1e-14)
assert torch.allclose(sgd_buggy - start, N * (sgd_fixed - start), rtol=1e-10)

# Adam: the update is nearly the same (only epsilon sees the scale).
adam_buggy = weights_after_one_step(False, lambda ps: torch.optim.Adam(ps, lr=lr))
adam_fixed = weights_after_one_step(True, lambda ps: torch.optim.Adam(ps, lr=lr))
assert torch.allclose(adam_buggy - start, adam_fixed - start, rtol=1e-5)
print(f"norm fixed {norm(fixed):.3f}, buggy {norm(buggy):.3f} (x{N}); SGD x{N}; Adam unchanged")
