"""Claim: a scheduler passed through `accelerator.prepare()` and stepped on every micro-batch inside
`accelerator.accumulate()` does nothing inside a window and, with the default `split_batches=False`,
steps the wrapped scheduler once per process at each window boundary
(`AcceleratedScheduler.step`, https://github.com/huggingface/accelerate/blob/v1.15.0/src/accelerate/scheduler.py):
on 8 processes, 8 schedule steps per optimizer step, whatever N is. A transformers cosine written
for 200 warm-up and 4,000 total optimizer steps then ends its warm-up after 25 optimizer steps and
reaches its floor after 500; since that cosine keeps going past its end (no clamp,
https://github.com/huggingface/transformers/blob/v5.24.0/src/transformers/optimization.py#L134-L140),
the learning rate climbs back to its peak and falls again, cycling for the rest of the run. Giving
the lengths times the number of processes (1,600 and 32,000) follows the plan.

Runs Accelerate's wrapper and transformers' schedule (both pinned) in one CPU process that reports
8 processes to the wrapper (`PartialState`'s `num_processes`, the only thing `step()` reads of the
distributed setup), on a run scaled down 12.5 times (16 and 320 optimizer steps); the question's
own numbers come from the same schedule function. Used by: final exam `accelerate-scheduler-per-process`.
"""

import torch
from accelerate import Accelerator
from accelerate.state import PartialState
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from transformers import get_cosine_schedule_with_warmup

N, PROCESSES, PEAK, MICRO = 4, 8, 1e-3, 2
WARMUP, TOTAL = 16, 320  # the run's real optimizer steps, as the question gives them (200 and 4,000 / 12.5)


def learning_rates(times_processes: bool) -> list[float]:
    """The question's loop; the learning rate each real optimizer step used."""
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=N)
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=PEAK)
    factor = PROCESSES if times_processes else 1
    scheduler = get_cosine_schedule_with_warmup(optimizer, WARMUP * factor, TOTAL * factor)
    loader = DataLoader(TensorDataset(torch.randn(TOTAL * N * MICRO, 3), torch.randn(TOTAL * N * MICRO, 1)), MICRO)
    used = []
    optimizer.register_step_pre_hook(lambda opt, *_: used.append(opt.param_groups[0]["lr"]))
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    PartialState._shared_state["num_processes"] = PROCESSES  # what AcceleratedScheduler.step() reads
    for x, y in loader:
        with accelerator.accumulate(model):
            accelerator.backward(nn.functional.mse_loss(model(x), y))
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
    PartialState._shared_state["num_processes"] = 1
    return used


buggy, fixed = learning_rates(times_processes=False), learning_rates(times_processes=True)
assert len(buggy) == len(fixed) == TOTAL  # one real optimizer step per window of N micro-batches
# Step k (from 1) used the schedule after 8 (k - 1) schedule steps: PROCESSES per boundary, not N.
assert buggy.index(PEAK) == WARMUP // PROCESSES  # warm-up over after 2 optimizer steps, not 16
assert buggy.index(0.0, 1) == TOTAL // PROCESSES  # the floor after 40, not 320
floors = [k for k in range(1, TOTAL) if buggy[k] == 0.0]
peaks = [k for k in range(TOTAL) if abs(buggy[k] - PEAK) < 1e-12]
assert floors == [40, 116, 192, 268] and peaks == [2, 78, 154, 230, 306]  # back to the peak, down again
# With the lengths times the number of processes, the plan: peak at WARMUP, then only falling.
assert fixed.index(PEAK) == WARMUP and all(a > b for a, b in zip(fixed[WARMUP:-1], fixed[WARMUP + 1 :], strict=True))

# The question's numbers, with the same schedule function: 8 schedule steps per optimizer step.
optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
factor = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=200, num_training_steps=4000).lr_lambdas[0]
lr = [factor(PROCESSES * k) for k in range(4000)]  # the learning rate of optimizer step k + 1
assert lr.index(1.0) == 25 and lr.index(0.0, 1) == 500  # warm-up over after 25, floor after 500
assert [k for k in range(4000) if lr[k] == 1.0] == [25, 975, 1925, 2875, 3825]  # peaks: it cycles
assert [k for k in range(1, 4000) if lr[k] == 0.0] == [500, 1450, 2400, 3350]  # and floors
print("8 schedule steps per optimizer step: warm-up over at 25, floor at 500, back at the peak at 975, ...")
