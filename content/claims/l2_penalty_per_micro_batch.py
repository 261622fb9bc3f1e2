"""Claim: with `loss = data_loss / N + l2_penalty` on every micro-batch, each backward adds the
penalty's gradient to `.grad`, so after a window it is there N times: the regularization is N times
stronger than intended, while the data term is the window's mean gradient. Dividing the whole loss,
penalty included, by N gives the full batch's gradient of data loss + penalty. AdamW's decoupled
weight decay, applied inside `optimizer.step()`, acts once per window whatever N is.

Used by: final exam `x-l2-penalty-in-loss`.
"""

import torch
from torch import nn

N, MICRO, LAMBDA = 4, 8, 0.05
torch.manual_seed(0)
X, Y = torch.randn(N * MICRO, 5, dtype=torch.float64), torch.randn(N * MICRO, 1, dtype=torch.float64)
START = nn.Linear(5, 1).double()
loss_fn = nn.MSELoss()


def model_at_start() -> nn.Module:
    model = nn.Linear(5, 1).double()
    model.load_state_dict(START.state_dict())
    return model


def penalty(model: nn.Module) -> torch.Tensor:
    return LAMBDA * sum((p**2).sum() for p in model.parameters())


def window_gradient(divide_penalty: bool) -> list[torch.Tensor]:
    """The question's window: N micro-batches, each `data_loss / N + penalty` (or all of it / N)."""
    model = model_at_start()
    for x, y in zip(X.chunk(N), Y.chunk(N), strict=True):
        data_loss = loss_fn(model(x), y)
        loss = (data_loss + penalty(model)) / N if divide_penalty else data_loss / N + penalty(model)
        loss.backward()
    return [p.grad for p in model.parameters()]


def full_batch_gradient(penalty_weight: float) -> list[torch.Tensor]:
    """Gradient of the full batch's data loss plus penalty_weight times the penalty."""
    model = model_at_start()
    (loss_fn(model(X), Y) + penalty_weight * penalty(model)).backward()
    return [p.grad for p in model.parameters()]


def close(a, b) -> bool:
    return all(torch.allclose(u, v, rtol=1e-12, atol=1e-15) for u, v in zip(a, b, strict=True))


buggy, fixed = window_gradient(divide_penalty=False), window_gradient(divide_penalty=True)
assert close(fixed, full_batch_gradient(1.0))  # the whole loss divided by N: the intended gradient
assert close(buggy, full_batch_gradient(N))  # the penalty only: N times over
assert not close(buggy, fixed)

# AdamW's decoupled decay: one multiplication by (1 - lr * weight_decay) per optimizer step, so the
# same whether the window's gradient came from 1 or N micro-batches.
for micro_batches in (1, N):
    model = model_at_start()
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.1, weight_decay=0.5)
    for x, y in zip(X.chunk(micro_batches), Y.chunk(micro_batches), strict=True):
        (loss_fn(model(x), y) / micro_batches).backward()
    for p in model.parameters():
        p.grad.zero_()  # only the decay moves the weights
    optimizer.step()
    for p, p0 in zip(model.parameters(), START.parameters(), strict=True):
        assert torch.allclose(p, p0 * (1 - 0.1 * 0.5), rtol=1e-12, atol=1e-15)
print(f"L2 term in each micro-batch's loss: its gradient counted {N} times per window")
