"""Claim: `optimizer.step()` after every micro-batch (with `zero_grad()` once per window) makes N
updates per window instead of one, each on the running partial sum in `.grad`, so micro-batch j
of the window is applied N - j + 1 times; AdamW also applies its weight decay N times. Stepping
inside the `if` makes one update with the accumulated mean gradient.

The loss is linear in the weights, so every micro-batch's gradient is the same at any weights and
the updates can be compared exactly. Used by: final exam `bug-step-every-micro-batch`.
"""

import torch
from torch import nn

N, MICRO = 4, 8
torch.manual_seed(0)
X, Y = torch.randn(N * MICRO, 5, dtype=torch.float64), torch.randn(N * MICRO, 1, dtype=torch.float64)
BATCHES = list(zip(X.chunk(N), Y.chunk(N), strict=True))
START = nn.Linear(5, 1).double()
LR = 0.1


def loss_fn(out, y):
    return (out * y).mean()  # linear in the weights: its gradient does not depend on them


def buggy_loop(model, optimizer):  # the question's code (without its scheduler)
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(BATCHES):
        loss = loss_fn(model(x), y) / N
        loss.backward()
        optimizer.step()
        if (i + 1) % N == 0:
            optimizer.zero_grad(set_to_none=True)


def fixed_loop(model, optimizer):
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(BATCHES):
        loss = loss_fn(model(x), y) / N
        loss.backward()
        if (i + 1) % N == 0:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)


def run(loop, make_optimizer) -> tuple[torch.Tensor, int]:
    """The weights after one window, and how many optimizer steps it made."""
    model = nn.Linear(5, 1).double()
    model.load_state_dict(START.state_dict())
    optimizer = make_optimizer(model.parameters())
    steps = []
    optimizer.register_step_post_hook(lambda *_: steps.append(1))
    loop(model, optimizer)
    return torch.cat([p.detach().flatten() for p in model.parameters()]), len(steps)


def micro_batch_gradient(x, y) -> torch.Tensor:
    model = nn.Linear(5, 1).double()
    model.load_state_dict(START.state_dict())
    loss_fn(model(x), y).backward()
    return torch.cat([p.grad.flatten() for p in model.parameters()])


start = torch.cat([p.detach().flatten() for p in START.parameters()])
grads = [micro_batch_gradient(x, y) for x, y in BATCHES]


def sgd(ps):
    return torch.optim.SGD(ps, lr=LR)


buggy, buggy_steps = run(buggy_loop, sgd)
fixed, fixed_steps = run(fixed_loop, sgd)
assert (buggy_steps, fixed_steps) == (N, 1)
# Fixed: one update with the mean gradient.
assert torch.allclose(fixed - start, -LR * sum(grads) / N, rtol=1e-12, atol=1e-15)
# Buggy: N updates on the partial sums, micro-batch j (1-based) applied N - j + 1 times.
weighted = sum((N - j) * g for j, g in enumerate(grads)) / N
assert torch.allclose(buggy - start, -LR * weighted, rtol=1e-12, atol=1e-15)
assert not torch.allclose(buggy, fixed, rtol=1e-3)

# AdamW's decoupled weight decay: N times per window instead of once. A parameter whose gradient
# is zero isolates it (Adam's own update is then 0).
DECAY = 0.1


def adamw(ps):
    return torch.optim.AdamW(ps, lr=LR, weight_decay=DECAY)


def decay_only_loop(stepping_every_micro_batch):
    def loop(model, optimizer):
        optimizer.zero_grad(set_to_none=True)
        for i, (x, _) in enumerate(BATCHES):
            (0 * model(x).sum()).backward()
            if stepping_every_micro_batch or (i + 1) % N == 0:
                optimizer.step()
            if (i + 1) % N == 0:
                optimizer.zero_grad(set_to_none=True)

    return loop


buggy_decay, _ = run(decay_only_loop(True), adamw)
fixed_decay, _ = run(decay_only_loop(False), adamw)
assert torch.allclose(fixed_decay, start * (1 - LR * DECAY), rtol=1e-12)
assert torch.allclose(buggy_decay, start * (1 - LR * DECAY) ** N, rtol=1e-12)
print(f"{buggy_steps} updates per window instead of 1; micro-batch j applied N - j + 1 times; decay x{N}")
