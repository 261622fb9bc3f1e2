"""Claim: under a GradScaler, clipping before `scaler.unscale_()` measures the gradient still
multiplied by the loss scale S, so its norm is S times too large, the clip at 1.0 fires at every
step, and once unscaled the gradient (hence the update) is far smaller than intended: its norm is
1/S. Unscaling first, then clipping, clips the real gradient (here below 1.0, so left as it is).

fp16 autocast and the GradScaler run on the CPU here; the scaler's arithmetic is the same on CUDA.
Used by: final exam `bug-clip-before-unscale`; the-accumulation-loop quiz `amp-clipping`.
"""

import torch
from torch import nn

N, MICRO, WINDOWS = 4, 8, 3
torch.manual_seed(0)
X, Y = torch.randn(WINDOWS * N * MICRO, 6), 0.3 * torch.randn(WINDOWS * N * MICRO, 1)
START = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
loss_fn = nn.MSELoss()


def norm(model: nn.Module) -> float:
    return torch.cat([p.grad.flatten() for p in model.parameters()]).norm().item()


def run(unscale_first: bool) -> tuple[list[float], list[float], list[float]]:
    """The question's loop; per step: the norm clipping measured, and the norm and the SGD update
    the optimizer then applied."""
    model = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
    model.load_state_dict(START.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    measured, stepped, updates = [], [], []
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(zip(X.chunk(WINDOWS * N), Y.chunk(WINDOWS * N), strict=True)):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = loss_fn(model(x), y) / N
        scaler.scale(loss).backward()
        if (i + 1) % N == 0:
            if unscale_first:
                scaler.unscale_(optimizer)
                measured.append(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item())
            else:
                measured.append(torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item())
                scaler.unscale_(optimizer)
            stepped.append(norm(model))
            before = torch.cat([p.detach().flatten().clone() for p in model.parameters()])
            scaler.step(optimizer)
            scaler.update()
            updates.append((torch.cat([p.detach().flatten() for p in model.parameters()]) - before).norm().item())
            optimizer.zero_grad(set_to_none=True)
    return measured, stepped, updates


S = torch.amp.GradScaler("cpu").get_scale()  # 65536 at the start, kept for 2000 steps without overflow
buggy_measured, buggy_stepped, buggy_updates = run(unscale_first=False)
fixed_measured, fixed_stepped, fixed_updates = run(unscale_first=True)
assert len(buggy_updates) == len(fixed_updates) == WINDOWS

# First window (same weights): the buggy clip measures S times the real norm.
true_norm = fixed_measured[0]
assert 0.01 < true_norm < 1.0, true_norm  # the real gradient needs no clipping
assert abs(buggy_measured[0] / true_norm - S) < 1e-3 * S
# The buggy clip fires at every step, and the gradient it leaves, once unscaled, has norm 1/S.
assert all(m > 1.0 for m in buggy_measured)
assert all(abs(n * S - 1.0) < 1e-3 for n in buggy_stepped)
# Fixed: the optimizer steps on the real, unclipped gradient; the buggy update is ~S * |g| times smaller.
assert all(abs(n - m) < 1e-6 * m for n, m in zip(fixed_stepped, fixed_measured, strict=True))
assert fixed_updates[0] / buggy_updates[0] > 0.5 * S * true_norm
print(f"S = {S:.0f}; real norm {true_norm:.3f}; buggy clip saw {buggy_measured[0]:.0f}, stepped on 1/S")
