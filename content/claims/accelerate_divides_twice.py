"""Claim: `accelerator.backward(loss)` already divides the loss by `gradient_accumulation_steps`
(accelerate 1.15.0, `Accelerator.backward`: `loss = loss / self.gradient_accumulation_steps`,
https://github.com/huggingface/accelerate/blob/v1.15.0/src/accelerate/accelerator.py), so a loop
that also writes `/ N` gets a gradient N times too small (with SGD, a learning rate N times too low).
Without the `/ N` the optimizer steps on the mean gradient of the N micro-batches; `step()` and
`zero_grad()` on every micro-batch are right, because inside `accumulate()` the prepared optimizer
ignores them until the window is complete (`AcceleratedOptimizer.step` / `zero_grad` check
`gradient_state.sync_gradients`, src/accelerate/optimizer.py; the guide to accumulation with
Accelerate: https://huggingface.co/docs/accelerate/usage_guides/gradient_accumulation).

Runs Accelerate itself, on the CPU in one process. Used by: final exam `bug-accelerate-divides-twice`,
`x-accelerate-accumulate`, `x-accelerate-loop-order`.
"""

import torch
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

N, MICRO, WINDOWS, LR = 4, 8, 2, 0.1
torch.manual_seed(0)
X, Y = (
    torch.randn(WINDOWS * N * MICRO, 5, dtype=torch.float64),
    torch.randn(WINDOWS * N * MICRO, 1, dtype=torch.float64),
)
START = nn.Linear(5, 1).double()
loss_fn = nn.MSELoss()
accelerator = Accelerator(cpu=True, gradient_accumulation_steps=N)


def run(divide_again: bool):
    """The question's loop; per real optimizer step: the weights before it and the gradient it used."""
    model = nn.Linear(5, 1).double()
    model.load_state_dict(START.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=LR)
    loader = DataLoader(TensorDataset(X, Y), batch_size=MICRO, shuffle=False)
    seen = []
    optimizer.register_step_pre_hook(
        lambda *_: seen.append(
            ({k: v.clone() for k, v in model.state_dict().items()}, [p.grad.clone() for p in model.parameters()])
        )
    )
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        with accelerator.accumulate(model):
            loss = loss_fn(model(x), y) / N if divide_again else loss_fn(model(x), y)
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
    return seen


def mean_gradient(weights, window: int) -> list[torch.Tensor]:
    model = nn.Linear(5, 1).double()
    model.load_state_dict(weights)
    rows = slice(window * N * MICRO, (window + 1) * N * MICRO)
    loss_fn(model(X[rows]), Y[rows]).backward()  # the window's micro-batches as one batch: their mean
    return [p.grad for p in model.parameters()]


buggy, fixed = run(divide_again=True), run(divide_again=False)
assert len(buggy) == len(fixed) == WINDOWS  # one real step per window: step() is ignored in between
for window, (weights, grads) in enumerate(fixed):
    for g, m in zip(grads, mean_gradient(weights, window), strict=True):
        assert torch.allclose(g, m, rtol=1e-12, atol=1e-15)  # zero_grad() ignored in between too
for b, f in zip(buggy[0][1], fixed[0][1], strict=True):  # first window, same weights
    assert torch.allclose(b, f / N, rtol=1e-12, atol=1e-15)
print(f"accelerate: gradient {N} times too small with the extra / N; the mean gradient without it")
