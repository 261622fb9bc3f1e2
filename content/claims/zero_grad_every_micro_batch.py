"""Claim: with `zero_grad()` at every micro-batch, the optimizer steps on the last micro-batch's
gradient alone, still divided by N (N times too small); with `zero_grad()` once per window it steps
on the mean gradient of the N micro-batches, the full-batch gradient.

Used by: final exam `bug-zero-grad-every-micro-batch`; the-accumulation-loop quiz `window-order`.
"""

import torch
from torch import nn

N, MICRO, WINDOWS = 4, 8, 2
torch.manual_seed(0)
X, Y = torch.randn(WINDOWS * N * MICRO, 5, dtype=torch.float64), torch.randint(0, 3, (WINDOWS * N * MICRO,))
START = nn.Linear(5, 3).double()
loss_fn = nn.CrossEntropyLoss()


def run(loop) -> list[list[torch.Tensor]]:
    """Runs a loop (SGD) and returns the gradients the optimizer saw at each of its steps."""
    model = nn.Linear(5, 3).double()
    model.load_state_dict(START.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    seen = []
    optimizer.register_step_pre_hook(lambda *_: seen.append([p.grad.clone() for p in model.parameters()]))
    loop(model, optimizer, list(zip(X.chunk(WINDOWS * N), Y.chunk(WINDOWS * N), strict=True)))
    return seen


def buggy_loop(model, optimizer, loader):  # the question's code
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad(set_to_none=True)
        logits = model(x)
        loss = loss_fn(logits, y) / N
        loss.backward()
        if (i + 1) % N == 0:
            optimizer.step()


def fixed_loop(model, optimizer, loader):  # zero_grad() once per window
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(loader):
        logits = model(x)
        loss = loss_fn(logits, y) / N
        loss.backward()
        if (i + 1) % N == 0:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)


def gradient(x, y, weights) -> list[torch.Tensor]:
    model = nn.Linear(5, 3).double()
    model.load_state_dict(weights)
    loss_fn(model(x), y).backward()
    return [p.grad for p in model.parameters()]


buggy = run(buggy_loop)
fixed = run(fixed_loop)
assert len(buggy) == len(fixed) == WINDOWS

# First window, from the same weights: the buggy step sees the last micro-batch's gradient / N,
# the fixed one the full-batch gradient of the window.
window_x, window_y = X[: N * MICRO], Y[: N * MICRO]
last = gradient(window_x[-MICRO:], window_y[-MICRO:], START.state_dict())
full = gradient(window_x, window_y, START.state_dict())
for b, f, g_last, g_full in zip(buggy[0], fixed[0], last, full, strict=True):
    assert torch.allclose(b, g_last / N, rtol=1e-12, atol=1e-15)
    assert torch.allclose(f, g_full, rtol=1e-12, atol=1e-15)
    assert not torch.allclose(b, f, rtol=1e-3)
print("buggy: last micro-batch / N; fixed: the window's full-batch gradient")
