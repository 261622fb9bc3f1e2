"""Claim: with 11 micro-batches per epoch and N = 4, a loop that steps only when `(i + 1) % N == 0`
and calls `zero_grad()` only right after `optimizer.step()` never steps on the last 3 micro-batches
(i = 8, 9, 10); their gradients stay in `.grad`, so the next epoch's first window sums 7
micro-batches' gradients, 3 of them stale. Calling `zero_grad()` at every epoch boundary gives that
window the mean gradient of its own 4 micro-batches, and so does stepping on the partial window,
divided by its real size, 3 (which then makes a third update per epoch).

Used by: final exam `x-leftover-micro-batches-leak`.
"""

import torch
from torch import nn

N, MICRO, PER_EPOCH, EPOCHS = 4, 5, 11, 2
torch.manual_seed(0)
X = torch.randn(PER_EPOCH * MICRO, 4, dtype=torch.float64)
Y = torch.randn(PER_EPOCH * MICRO, 1, dtype=torch.float64)
loader = list(zip(X.chunk(PER_EPOCH), Y.chunk(PER_EPOCH), strict=True))
START = nn.Linear(4, 1).double()
loss_fn = nn.MSELoss()


def run(fix: str | None):
    """The question's loop over EPOCHS epochs; at each optimizer step, the weights and the gradient."""
    model = nn.Linear(4, 1).double()
    model.load_state_dict(START.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    optimizer.register_step_pre_hook(
        lambda *_: seen.append(
            ({k: v.clone() for k, v in model.state_dict().items()}, [p.grad.clone() for p in model.parameters()])
        )
    )
    optimizer.zero_grad(set_to_none=True)
    for _ in range(EPOCHS):
        for i, (x, y) in enumerate(loader):
            last = (i + 1) % N == 0 or (fix == "step the partial window" and i + 1 == PER_EPOCH)
            n = min(N, PER_EPOCH - (i - i % N)) if fix == "step the partial window" else N
            (loss_fn(model(x), y) / n).backward()
            if last:
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
        if fix == "zero_grad at the epoch boundary":
            optimizer.zero_grad(set_to_none=True)
    return seen


def gradient(weights, batches, divisor) -> list[torch.Tensor]:
    """The gradient of sum(loss of each batch) / divisor at `weights`, from a fresh model."""
    model = nn.Linear(4, 1).double()
    model.load_state_dict(weights)
    for x, y in batches:
        (loss_fn(model(x), y) / divisor).backward()
    return [p.grad for p in model.parameters()]


def close(a, b) -> bool:
    return all(torch.allclose(u, v, rtol=1e-12, atol=1e-15) for u, v in zip(a, b, strict=True))


buggy = run(fix=None)
assert len(buggy) == 2 * EPOCHS  # 2 steps per epoch: i = 8, 9, 10 never reach optimizer.step()
# The second epoch's first window: its 4 micro-batches plus the 3 left over from the first epoch (no
# step in between, so all 7 gradients were taken at the same weights), each divided by N = 4.
weights = buggy[2][0]
stale, own = gradient(weights, loader[8:], N), gradient(weights, loader[:4], N)
assert close(buggy[2][1], [s + o for s, o in zip(stale, own, strict=True)])  # 7 gradients, 3 stale
assert not close(buggy[2][1], own)

for fix, steps_per_epoch in (("zero_grad at the epoch boundary", 2), ("step the partial window", 3)):
    fixed = run(fix)
    assert len(fixed) == steps_per_epoch * EPOCHS
    weights, grads = fixed[steps_per_epoch]  # the second epoch's first window
    assert close(grads, gradient(weights, loader[:4], N))  # the mean gradient of its own 4 micro-batches
    if fix == "step the partial window":
        weights, grads = fixed[2]
        assert close(grads, gradient(weights, loader[8:], 3))  # the short window: its own mean
print("11 micro-batches, N = 4: the next epoch's first window sums 7 gradients, 3 of them stale")
