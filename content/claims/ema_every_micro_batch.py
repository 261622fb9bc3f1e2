"""Claim: updating an EMA of the weights after every micro-batch instead of once per optimizer step applies the
decay N times per step, so what the EMA remembers of its past shrinks by beta ** N per optimizer step instead of
beta; and since the weights only change at the optimizer step, N - 1 of every N updates average weights that have
not changed since the previous update.
Checked by: the-accumulation-loop quiz `ema-decay-per-micro-batch`, final exam `bug-ema-every-micro-batch`."""

import torch
from torch import nn

torch.manual_seed(0)
N, STEPS, BETA = 4, 12, 0.9
data = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(N * STEPS)]


def train(ema_every_micro_batch, start_offset=0.0):
    """Train with accumulation; return the final EMA and how many EMA updates saw unchanged weights."""
    torch.manual_seed(1)
    model = nn.Linear(5, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    ema = [p.detach().clone() + start_offset for p in model.parameters()]
    last_seen = torch.cat([p.detach().flatten() for p in model.parameters()])
    unchanged = 0
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(data):
        (nn.functional.mse_loss(model(x), y) / N).backward()
        if (i + 1) % N == 0:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        if ema_every_micro_batch or (i + 1) % N == 0:
            current = torch.cat([p.detach().flatten() for p in model.parameters()])
            unchanged += int(torch.equal(current, last_seen))
            last_seen = current
            with torch.no_grad():
                for e, p in zip(ema, model.parameters()):
                    e.mul_(BETA).add_(p, alpha=1 - BETA)
    return torch.cat([e.flatten() for e in ema]), unchanged


right, unchanged_right = train(ema_every_micro_batch=False)
wrong, unchanged_wrong = train(ema_every_micro_batch=True)

# What each EMA keeps of its starting point: shift the start by 1 and see how much of the shift is left.
kept_right = (train(False, start_offset=1.0)[0] - right).mean().item()
kept_wrong = (train(True, start_offset=1.0)[0] - wrong).mean().item()
assert abs(kept_right - BETA**STEPS) < 1e-5  # decay beta per optimizer step, as intended
assert abs(kept_wrong - (BETA**N) ** STEPS) < 1e-5  # decay beta ** N per optimizer step

assert unchanged_right == 0
assert unchanged_wrong == STEPS * (N - 1)  # N - 1 of every N updates averaged the same weights again

gap = (wrong - right).abs().max().item()
assert gap > 1e-2, gap  # a different average from the one the recipe asked for
print(f"decay per optimizer step: {BETA} intended, {BETA**N:.4f} in effect; largest weight difference {gap:.3f}")
