"""Claim: moving the AdamW recipe (3e-4 at batch 256, warm-up 2,000 steps) to an effective batch of
1,024 (micro-batch 32, N = 32), line 5's `lr=base_lr * k` scales linearly (x 4, 1.2e-3) where the
square-root rule gives x 2 (6e-4); line 11's per-micro-batch `scheduler.step()` ends the 500-step
warm-up after 500 micro-batches, at the 16th optimizer step; line 6 is right: 500 optimizer steps of
1,024 examples are the 2,000 steps of 256. With the scheduler inside the `if`, the warm-up advances
one step per optimizer step.

Used by: guide quiz `bug-scaled-adamw-and-warmup` (do-you-need-a-bigger-batch).
"""

import math

import torch
from torch import nn

WINDOWS = 20
base_lr, base_batch, base_warmup = 3e-4, 256, 2000
micro_batch, N = 32, 32
effective_batch = micro_batch * N
k = effective_batch / base_batch
warmup_steps = base_warmup * base_batch // effective_batch
assert (k, warmup_steps) == (4, 500)
assert warmup_steps * effective_batch == base_warmup * base_batch  # line 6: the same examples
loss_fn = nn.MSELoss()


def learning_rates(lr: float, scheduler_per_micro_batch: bool) -> list[float]:
    """The question's loop for WINDOWS windows; the learning rate each optimizer step used."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
    used = []
    optimizer.register_step_pre_hook(lambda opt, *_: used.append(opt.param_groups[0]["lr"]))
    optimizer.zero_grad(set_to_none=True)
    for i in range(WINDOWS * N):
        x, y = torch.randn(micro_batch, 4), torch.randn(micro_batch, 1)
        (loss_fn(model(x), y) / N).backward()
        if scheduler_per_micro_batch:
            scheduler.step()
        if (i + 1) % N == 0:
            optimizer.step()
            if not scheduler_per_micro_batch:
                scheduler.step()
            optimizer.zero_grad(set_to_none=True)
    return used


buggy_lr, fixed_lr = base_lr * k, base_lr * k**0.5
assert math.isclose(buggy_lr, 1.2e-3) and math.isclose(fixed_lr, 6e-4)

buggy = learning_rates(buggy_lr, scheduler_per_micro_batch=True)
first_full = next(n for n, lr in enumerate(buggy, start=1) if math.isclose(lr, buggy_lr))
assert first_full == 16 == math.ceil(warmup_steps / N), first_full  # 500 micro-batches, 16 optimizer steps

fixed = learning_rates(fixed_lr, scheduler_per_micro_batch=False)
for n, lr in enumerate(fixed, start=1):  # step n of the 500-step warm-up: n/500 of the peak
    assert math.isclose(lr, fixed_lr * n / warmup_steps), (n, lr)
print(f"buggy: peak {buggy_lr:.1e} from optimizer step {first_full}; fixed: {fixed_lr:.1e}, warm-up over 500 steps")
