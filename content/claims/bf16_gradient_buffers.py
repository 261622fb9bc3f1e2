"""Claim: `.to(torch.bfloat16)` on the model makes the parameters, their `.grad` buffers and AdamW's
state bfloat16, so the 16 micro-batch gradients are added in bfloat16 (8-bit significand): the
accumulated gradient is off from the exact sum of the same 16 gradients by about 1e-3 or more
relative. Without the cast, bf16 autocast still runs the forward in bfloat16 while parameters,
gradients and optimizer state stay float32, and the sum is within about 1e-7 of exact.

bf16 autocast runs on the CPU here; the dtypes and the additions are the same on CUDA.
Used by: guide quiz `bug-bf16-gradient-buffers` (gradient-accumulation-in-practice).
"""

import torch
from torch import nn

N, MICRO = 16, 4
torch.manual_seed(0)
X, Y = torch.randn(N * MICRO, 32), torch.randn(N * MICRO, 1)
loader = list(zip(X.chunk(N), Y.chunk(N), strict=True))
START = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 1))
loss_fn = nn.MSELoss()


def build_model(cast_to_bf16: bool) -> nn.Module:
    model = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 1))
    model.load_state_dict(START.state_dict())
    return model.to(torch.bfloat16) if cast_to_bf16 else model


def micro_batch_loss(model, x, y):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return loss_fn(model(x), y.to(next(model.parameters()).dtype)) / N


def run(cast_to_bf16: bool) -> tuple[float, torch.dtype, torch.dtype]:
    """One window of the question's loop: the accumulated gradient's relative error against the exact
    (float64) sum of the same 16 micro-batch gradients; the dtype of `.grad` and of AdamW's state."""
    model = build_model(cast_to_bf16)
    parts = []  # each micro-batch's own gradient, as backward produced it
    for x, y in loader:
        model.zero_grad(set_to_none=True)
        micro_batch_loss(model, x, y).backward()
        parts.append([p.grad.double() for p in model.parameters()])
    exact = [sum(grads) for grads in zip(*parts, strict=True)]

    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    optimizer.zero_grad(set_to_none=True)
    for x, y in loader:
        micro_batch_loss(model, x, y).backward()
    accumulated = [p.grad for p in model.parameters()]
    error = max(((a.double() - e).norm() / e.norm()).item() for a, e in zip(accumulated, exact, strict=True))
    grad_dtype = accumulated[0].dtype
    optimizer.step()
    state_dtype = optimizer.state[next(model.parameters())]["exp_avg"].dtype
    return error, grad_dtype, state_dtype


buggy_error, buggy_grad, buggy_state = run(cast_to_bf16=True)
fixed_error, fixed_grad, fixed_state = run(cast_to_bf16=False)
assert buggy_grad == buggy_state == torch.bfloat16
assert fixed_grad == fixed_state == torch.float32
assert buggy_error > 1e-3, buggy_error
assert fixed_error < 1e-6, fixed_error
print(f"accumulation error over {N} micro-batches: bfloat16 buffers {buggy_error:.1e}, float32 {fixed_error:.1e}")
