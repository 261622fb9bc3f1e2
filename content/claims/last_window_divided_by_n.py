"""Claim: when the epoch's micro-batch count is not a multiple of N, dividing every loss by N leaves
the shorter last window with (real size)/N of its mean gradient: 3/4 for 3 micro-batches and N = 4,
3/8 for 3 micro-batches and N = 8 (what Accelerate's `backward()` does by default, since it divides
every loss by `gradient_accumulation_steps`). Dividing by the window's real size,
n = min(N, num_micro - (i - i % N)), gives every window its mean gradient; the `last` test on line 4
makes the short window step.

Used by: final exam `bug-last-window-divided-by-n`; the-accumulation-loop quiz `partial-window`.
"""

import torch
from torch import nn

MICRO = 5
loss_fn = nn.MSELoss()


def check(N: int, num_micro: int) -> None:
    """The question's loop with windows of N micro-batches and a last one of num_micro % N."""
    torch.manual_seed(0)
    X = torch.randn(num_micro * MICRO, 4, dtype=torch.float64)
    Y = torch.randn(num_micro * MICRO, 1, dtype=torch.float64)
    loader = list(zip(X.chunk(num_micro), Y.chunk(num_micro), strict=True))
    start = nn.Linear(4, 1).double()

    def run(divide_by_real_size: bool):
        """The question's loop; the weights and the gradient at each optimizer step, and the divisors."""
        model = nn.Linear(4, 1).double()
        model.load_state_dict(start.state_dict())
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        seen, divisors = [], []

        def record(*_):
            weights = {k: v.clone() for k, v in model.state_dict().items()}
            seen.append((weights, [p.grad.clone() for p in model.parameters()]))

        optimizer.register_step_pre_hook(record)
        optimizer.zero_grad(set_to_none=True)
        for i, (x, y) in enumerate(loader):
            last = (i + 1) % N == 0 or i + 1 == num_micro
            n = min(N, num_micro - (i - i % N)) if divide_by_real_size else N
            divisors.append(n)
            loss = loss_fn(model(x), y) / n
            loss.backward()
            if last:
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
        return seen, divisors

    def mean_gradient(weights, batches) -> list[torch.Tensor]:
        model = nn.Linear(4, 1).double()
        model.load_state_dict(weights)
        for x, y in batches:
            (loss_fn(model(x), y) / len(batches)).backward()
        return [p.grad for p in model.parameters()]

    short = num_micro % N
    buggy, _ = run(divide_by_real_size=False)
    fixed, divisors = run(divide_by_real_size=True)
    assert len(buggy) == len(fixed) == 2  # both loops step on the short window (line 4)
    assert divisors == [N] * N + [short] * short
    windows = [loader[:N], loader[N:]]
    for (weights, grads), batches in zip(fixed, windows, strict=True):
        for g, m in zip(grads, mean_gradient(weights, batches), strict=True):
            assert torch.allclose(g, m, rtol=1e-12, atol=1e-15)  # every window: its mean gradient
    # The full first window is the same in both; the short one gets short/N of its mean in the buggy loop.
    for b, f in zip(buggy[0][1], fixed[0][1], strict=True):
        assert torch.allclose(b, f, rtol=1e-12, atol=1e-15)
    weights, grads = buggy[1]
    for b, m in zip(grads, mean_gradient(weights, windows[1]), strict=True):
        assert torch.allclose(b, m * short / N, rtol=1e-12, atol=1e-15)
    print(f"last window of {short} with N = {N}: {short}/{N} of its mean gradient; divided by its real size: its mean")


check(N=4, num_micro=7)  # the exam's question: windows of 4 and 3
check(N=8, num_micro=11)  # the guide quiz's: windows of 8 and 3, an update 3/8 of the intended size
