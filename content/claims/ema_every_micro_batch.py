"""Claim: updating an EMA of the weights after every micro-batch instead of once per optimizer step applies the
decay N times per step, so what the EMA remembers of its past shrinks by beta ** N per optimizer step instead of
beta; and since the weights only change at the optimizer step, N - 1 of every N updates average weights that have
not changed since the previous update. The update is the one torch.optim.swa_utils.AveragedModel applies with
get_ema_multi_avg_fn(beta), checked here against AveragedModel itself.

Used by: the-accumulation-loop quiz `ema-decay-per-micro-batch`, final exam `bug-ema-every-micro-batch`.
"""

import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn

torch.manual_seed(0)
N, STEPS, BETA = 4, 12, 0.9
data = [(torch.randn(8, 5), torch.randn(8, 1)) for _ in range(N * STEPS)]


def train(ema_every_micro_batch, start_offset=None):
    """Train with accumulation and an EMA updated at the end of the loop body, every micro-batch or only after
    optimizer.step(). With start_offset=None the EMA is AveragedModel (its first update copies the weights);
    otherwise it is the same update written by hand, starting from the initial weights + start_offset.
    Returns the final EMA and how many EMA updates saw weights unchanged since the previous update."""
    torch.manual_seed(1)
    model = nn.Linear(5, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if start_offset is None:
        averaged = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(BETA))
    else:
        ema = [p.detach().clone() + start_offset for p in model.parameters()]
    last_seen, unchanged = None, 0
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(data):
        (nn.functional.mse_loss(model(x), y) / N).backward()
        if (i + 1) % N == 0:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        if ema_every_micro_batch or (i + 1) % N == 0:
            current = torch.cat([p.detach().flatten() for p in model.parameters()])
            unchanged += int(last_seen is not None and torch.equal(current, last_seen))
            last_seen = current
            if start_offset is None:
                averaged.update_parameters(model)
            else:
                with torch.no_grad():
                    for e, p in zip(ema, model.parameters(), strict=True):
                        e.mul_(BETA).add_(p, alpha=1 - BETA)
    final = averaged.module.parameters() if start_offset is None else ema
    return torch.cat([e.detach().flatten() for e in final]), unchanged


right, unchanged_right = train(ema_every_micro_batch=False)
wrong, unchanged_wrong = train(ema_every_micro_batch=True)
assert unchanged_right == 0
assert unchanged_wrong == STEPS * (N - 1) - 1  # N - 1 of every N updates (the very first has nothing before it)
gap = (wrong - right).abs().max().item()
assert gap > 1e-2, gap  # AveragedModel updated per micro-batch is not the average the recipe asked for

# What each EMA keeps of its starting point: shift the start by 1 and see how much of the shift is left.
base_right, base_wrong = train(False, start_offset=0.0)[0], train(True, start_offset=0.0)[0]
kept_right = (train(False, start_offset=1.0)[0] - base_right).mean().item()
kept_wrong = (train(True, start_offset=1.0)[0] - base_wrong).mean().item()
assert abs(kept_right - BETA**STEPS) < 1e-5  # decay beta per optimizer step, as intended
assert abs(kept_wrong - (BETA**N) ** STEPS) < 1e-5  # decay beta ** N per optimizer step

# The hand-written update is AveragedModel's: after its first update (a copy), both give the same weights.
with torch.no_grad():
    torch.manual_seed(1)
    model = nn.Linear(5, 1)
    averaged = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(BETA))
    averaged.update_parameters(model)
    by_hand = [p.detach().clone() for p in model.parameters()]
    for _ in range(3):
        for p in model.parameters():
            p.add_(torch.randn_like(p))
        averaged.update_parameters(model)
        for e, p in zip(by_hand, model.parameters(), strict=True):
            e.mul_(BETA).add_(p, alpha=1 - BETA)
    assert all(torch.allclose(a, b, atol=1e-6) for a, b in zip(averaged.module.parameters(), by_hand, strict=True))

print(f"decay per optimizer step: {BETA} intended, {BETA**N:.4f} in effect; largest weight difference {gap:.3f}")
