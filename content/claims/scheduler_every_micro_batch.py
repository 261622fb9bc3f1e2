"""Claim: a warm-up + cosine schedule written in optimizer steps, stepped after every micro-batch,
advances N times per optimizer step: the warm-up ends after 1/N of its planned optimizer steps and
the cosine reaches its floor when 1/N of the run is done. Stepped once per window, after
`optimizer.step()`, it follows the plan.

Used by: final exam `bug-scheduler-every-micro-batch`.
"""

import math

import torch
from torch import nn

N, WARMUP, TOTAL, PEAK, FLOOR = 4, 8, 40, 1e-3, 0.1  # WARMUP and TOTAL in optimizer steps


def factor(step: int) -> float:
    """Linear warm-up to the peak over WARMUP steps, then a cosine down to FLOOR x peak on the last
    of the TOTAL steps (`step` counts from 0)."""
    if step < WARMUP:
        return (step + 1) / WARMUP
    progress = min(1.0, (step - WARMUP) / (TOTAL - 1 - WARMUP))
    return FLOOR + (1 - FLOOR) * 0.5 * (1 + math.cos(math.pi * progress))


def learning_rates(scheduler_every_micro_batch: bool) -> list[float]:
    """Runs the loop for TOTAL windows; the learning rate each optimizer step used."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
    used = []
    optimizer.register_step_pre_hook(lambda opt, *_: used.append(opt.param_groups[0]["lr"]))
    optimizer.zero_grad(set_to_none=True)
    for i in range(TOTAL * N):
        x, y = torch.randn(2, 3), torch.randn(2, 1)
        loss = nn.functional.mse_loss(model(x), y) / N
        loss.backward()
        if scheduler_every_micro_batch:
            scheduler.step()
        if (i + 1) % N == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            if not scheduler_every_micro_batch:
                scheduler.step()
            optimizer.zero_grad(set_to_none=True)
    return used


def first_step_at(lrs: list[float], value: float) -> int:
    """The 1-based number of the first optimizer step that used `value`."""
    return next(n for n, lr in enumerate(lrs, start=1) if math.isclose(lr, value, rel_tol=1e-9))


buggy, fixed = learning_rates(True), learning_rates(False)
assert len(buggy) == len(fixed) == TOTAL

# As planned: the peak at step WARMUP, the floor once TOTAL steps are done (only the last step has it).
assert first_step_at(fixed, PEAK) == WARMUP
assert first_step_at(fixed, FLOOR * PEAK) == TOTAL
# Per micro-batch: N schedule steps per optimizer step, so both come N times too early.
assert first_step_at(buggy, PEAK) == WARMUP // N
assert first_step_at(buggy, FLOOR * PEAK) == TOTAL // N
assert all(math.isclose(lr, FLOOR * PEAK) for lr in buggy[TOTAL // N :])  # the rest of the run at the floor
print(f"peak at optimizer step {WARMUP // N} instead of {WARMUP}; floor from step {TOTAL // N} of {TOTAL}")
