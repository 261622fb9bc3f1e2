"""Claim: instead of dividing each micro-batch's loss by N, dividing every `.grad` by N just before
`optimizer.step()` gives the same update (linearity), with any optimizer and with clipping after the
division. Dividing the learning rate by N gives the same update only with SGD, with or without
momentum, without weight decay and without clipping: with Adam the learning rate is not a gradient
scale (the update changes), and with clipping at a fixed max_norm the undivided norm is N times too
large, so the clip fires where it should not. Dividing only the last micro-batch's loss leaves the
other N - 1 terms undivided.

Used by: final exam `x-alternatives-to-dividing-loss`.
"""

import torch
from torch import nn

N, MICRO, WINDOWS, LR = 4, 8, 2, 0.05
torch.manual_seed(0)
X = torch.randn(WINDOWS * N * MICRO, 5, dtype=torch.float64)
Y = torch.randn(WINDOWS * N * MICRO, 1, dtype=torch.float64)
START = nn.Linear(5, 1).double()
with torch.no_grad():  # small weights, so the right gradient's norm stays below the clip threshold
    START.weight.mul_(0.1)
    START.bias.zero_()
loss_fn = nn.MSELoss()
MAX_NORM = 2.0  # above the right gradient's norm at both steps (0.39, 1.06), below 4 times the second


def train(how: str, optimizer_name: str, clip: bool = False) -> torch.Tensor:
    """WINDOWS optimizer steps of N micro-batches; the final weights."""
    model = nn.Linear(5, 1).double()
    model.load_state_dict(START.state_dict())
    lr = LR / N if how == "divide the learning rate" else LR
    optimizer = {
        "sgd": lambda: torch.optim.SGD(model.parameters(), lr=lr),
        "momentum": lambda: torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9),
        "adam": lambda: torch.optim.Adam(model.parameters(), lr=lr),
    }[optimizer_name]()
    micro_batches = list(zip(X.chunk(WINDOWS * N), Y.chunk(WINDOWS * N), strict=True))
    for w in range(WINDOWS):
        optimizer.zero_grad(set_to_none=True)
        for j, (x, y) in enumerate(micro_batches[w * N : (w + 1) * N]):
            loss = loss_fn(model(x), y)
            divide = how == "divide the loss" or (how == "divide the last loss" and j == N - 1)
            (loss / N if divide else loss).backward()
        if how == "divide the gradients":
            for p in model.parameters():
                p.grad /= N
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=MAX_NORM)
        optimizer.step()
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return torch.allclose(a, b, rtol=1e-10, atol=1e-13)


for name in ("sgd", "momentum", "adam"):  # dividing the gradients: always the same update
    assert same(train("divide the gradients", name), train("divide the loss", name)), name
    assert same(train("divide the gradients", name, clip=True), train("divide the loss", name, clip=True)), name
for name in ("sgd", "momentum"):  # dividing the learning rate: the same with SGD, with or without momentum
    assert same(train("divide the learning rate", name), train("divide the loss", name)), name
assert not same(train("divide the learning rate", "adam"), train("divide the loss", "adam"))
# With clipping: the right gradient is not clipped, the undivided one is, so the updates differ.
assert same(train("divide the loss", "sgd", clip=True), train("divide the loss", "sgd"))
assert not same(train("divide the learning rate", "sgd", clip=True), train("divide the loss", "sgd", clip=True))
assert not same(train("divide the last loss", "sgd"), train("divide the loss", "sgd"))
print("divide the gradients: same update; divide the learning rate: same with plain SGD only")
