"""Claim: when the epoch's micro-batch count is not a multiple of N, dividing every loss by N leaves
the shorter last window with (real size)/N of its mean gradient: 3/4 for 3 micro-batches and N = 4.
Dividing by the window's real size, n = min(N, num_micro - (i - i % N)), gives every window its mean
gradient; the `last` test on line 4 makes the short window step.

Used by: final exam `bug-last-window-divided-by-n`.
"""

import torch
from torch import nn

N, MICRO, NUM_MICRO = 4, 5, 7  # windows of 4 and 3 micro-batches
torch.manual_seed(0)
X, Y = torch.randn(NUM_MICRO * MICRO, 4, dtype=torch.float64), torch.randn(NUM_MICRO * MICRO, 1, dtype=torch.float64)
loader = list(zip(X.chunk(NUM_MICRO), Y.chunk(NUM_MICRO), strict=True))
START = nn.Linear(4, 1).double()
loss_fn = nn.MSELoss()


def run(divide_by_real_size: bool):
    """The question's loop; the weights and the gradient at each optimizer step, and the divisors."""
    model = nn.Linear(4, 1).double()
    model.load_state_dict(START.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    seen, divisors = [], []

    def record(*_):
        weights = {k: v.clone() for k, v in model.state_dict().items()}
        seen.append((weights, [p.grad.clone() for p in model.parameters()]))

    optimizer.register_step_pre_hook(record)
    num_micro = len(loader)
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(loader):
        last = (i + 1) % N == 0 or i + 1 == num_micro
        n = min(N, num_micro - (i - i % N)) if divide_by_real_size else N
        divisors.append(n)
        loss = loss_fn(model(x), y) / n
        loss.backward()
        if last:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
    return seen, divisors


def mean_gradient(weights, batches) -> list[torch.Tensor]:
    model = nn.Linear(4, 1).double()
    model.load_state_dict(weights)
    for x, y in batches:
        (loss_fn(model(x), y) / len(batches)).backward()
    return [p.grad for p in model.parameters()]


buggy, _ = run(divide_by_real_size=False)
fixed, divisors = run(divide_by_real_size=True)
assert len(buggy) == len(fixed) == 2  # both loops step on the short window (line 4)
assert divisors == [4, 4, 4, 4, 3, 3, 3]
windows = [loader[:N], loader[N:]]
for (weights, grads), batches in zip(fixed, windows, strict=True):
    for g, m in zip(grads, mean_gradient(weights, batches), strict=True):
        assert torch.allclose(g, m, rtol=1e-12, atol=1e-15)  # every window: its mean gradient
# The full first window is the same in both; the short one gets 3/4 of its mean in the buggy loop.
for b, f in zip(buggy[0][1], fixed[0][1], strict=True):
    assert torch.allclose(b, f, rtol=1e-12, atol=1e-15)
weights, short = buggy[1]
for b, m in zip(short, mean_gradient(weights, windows[1]), strict=True):
    assert torch.allclose(b, m * 3 / 4, rtol=1e-12, atol=1e-15)
print("last window of 3 with N = 4: 3/4 of its mean gradient; divided by its real size: its mean")
