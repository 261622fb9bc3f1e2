"""Claim: a warm-up + cosine schedule written in optimizer steps, stepped after every micro-batch,
advances N times per optimizer step: the warm-up ends after 1/N of its planned optimizer steps, the
cosine reaches its floor when 1/N of the run is done, and then it climbs back up, because
transformers' cosine keeps following the cosine past the end of the schedule (no clamp:
`_get_cosine_schedule_with_warmup_lr_lambda`,
https://github.com/huggingface/transformers/blob/v5.24.0/src/transformers/optimization.py#L134-L140):
back to the peak and down again, N/2 full cycles over the run. Stepped once per window, after
`optimizer.step()`, it follows the plan and reaches its floor only at the end. With the exam's
numbers (20,000 steps, 1,000 of warm-up, N = 4): the warm-up is over after 250 optimizer steps, the
schedule after 5,000, and the learning rate then rises again. PyTorch's `CosineAnnealingLR` does
the same (checked here too, and by guide 2's runnable block at #scheduler-weight-decay).

Runs transformers' own schedule (5.24.0, pinned). Used by: final exam
`bug-scheduler-every-micro-batch`, `scheduler-per-micro-batch`, `drawn-warmup-steps`,
`drawn-scheduler-steps-per-epoch`; do-you-need-a-bigger-batch quiz `warmup-in-steps`;
the-accumulation-loop quiz `once-per-step`.
"""

import math

import torch
from torch import nn
from transformers import get_cosine_schedule_with_warmup

N, WARMUP, TOTAL, PEAK = 4, 8, 40, 1e-3  # WARMUP and TOTAL in optimizer steps


def learning_rates(scheduler_every_micro_batch: bool) -> list[float]:
    """Runs the question's loop for TOTAL windows; the learning rate each optimizer step used."""
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK)
    scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=WARMUP, num_training_steps=TOTAL)
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


def steps_at(lrs: list[float], value: float) -> list[int]:
    """The 1-based numbers of the optimizer steps that used `value`."""
    return [n for n, lr in enumerate(lrs, start=1) if math.isclose(lr, value, rel_tol=1e-9, abs_tol=1e-15)]


buggy, fixed = learning_rates(True), learning_rates(False)
assert len(buggy) == len(fixed) == TOTAL

# As planned: step k uses the schedule's value at k - 1, so the peak comes at step WARMUP + 1, then
# the learning rate only falls, to its lowest value on the last step.
assert steps_at(fixed, PEAK) == [WARMUP + 1]
assert all(a > b for a, b in zip(fixed[WARMUP:-1], fixed[WARMUP + 1 :], strict=True))
assert min(fixed) == fixed[0] == 0.0 and fixed[-1] == min(fixed[WARMUP:]) > 0
# Per micro-batch: the k-th optimizer step uses the schedule's value after N * k schedule steps, so
# the warm-up ends N times too early and the floor (0) comes after TOTAL / N optimizer steps; then
# back to the peak and down again, a full cycle every 2 * (TOTAL - WARMUP) / N = 16 optimizer steps:
# N / 2 = 2 full cycles over the run, not a rest at the floor.
CYCLE = 2 * (TOTAL - WARMUP) // N
assert steps_at(buggy, PEAK) == [WARMUP // N, WARMUP // N + CYCLE, WARMUP // N + 2 * CYCLE]
assert steps_at(buggy, 0.0) == [TOTAL // N, TOTAL // N + CYCLE]
assert buggy[TOTAL // N] > buggy[TOTAL // N - 1] == 0.0  # the step after the floor is higher again

# PyTorch's CosineAnnealingLR, the other schedule the explanation names, goes on past T_max too.
optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=PEAK)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=TOTAL)
torch_lrs = []
for _ in range(TOTAL):
    torch_lrs.append(optimizer.param_groups[0]["lr"])
    optimizer.step()
    for _ in range(N):  # stepped on every micro-batch
        cosine.step()
assert abs(torch_lrs[TOTAL // N]) < 1e-12 and abs(torch_lrs[2 * TOTAL // N] - PEAK) < 1e-12  # floor, then peak

# The exam's numbers, with the same library schedule: 1,000 warm-up steps in 20,000; N = 4.
optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
factor = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=1000, num_training_steps=20000).lr_lambdas[0]
lr_at_step = [factor(4 * k) for k in range(20001)]  # optimizer step k (from 1): 4k schedule steps before it
assert lr_at_step.index(1.0) == 250  # warm-up over after 250 optimizer steps, not 1,000
assert lr_at_step.index(0.0, 1) == 5000  # the schedule's end after 5,000, not 20,000
assert lr_at_step[5001] > 0 and lr_at_step[9750] == 1.0  # then the learning rate climbs back up
print(
    f"peak at optimizer steps {steps_at(buggy, PEAK)} instead of {WARMUP + 1}; floor at step {TOTAL // N}"
    f" of {TOTAL}, back to the peak after it; exam: warm-up over at 250, schedule over at 5000"
)
