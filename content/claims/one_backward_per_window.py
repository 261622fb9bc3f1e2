"""Claim: keeping each micro-batch's loss in a list and calling one `backward()` on their sum at the
end of the window gives the right gradient, but keeps every micro-batch's graph, and the activations
it saved, alive until then: the peak is N times one micro-batch's. One `backward()` per micro-batch
frees each graph before the next forward, for the same gradient.

Activation memory is measured as the bytes of the tensors autograd saves for backward (parameters
excluded), tracked live with saved-tensor hooks, as the labs do on the CPU (labs/training/loop.py).
Used by: guide quiz `bug-one-backward-per-window` (what-is-gradient-accumulation), final exam
`x-sum-losses-one-backward`.
"""

import torch
from torch import nn

N, MICRO = 4, 16
torch.manual_seed(0)
X, Y = torch.randn(N * MICRO, 32), torch.randint(0, 10, (N * MICRO,))
loader = [(x.clone(), y.clone()) for x, y in zip(X.chunk(N), Y.chunk(N), strict=True)]  # own storages
START = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
loss_fn = nn.CrossEntropyLoss()


class Saved:
    """What autograd keeps for backward in place of a saved tensor: it drops it when backward has
    used it (or the graph dies), and then this tells the meter."""

    def __init__(self, tensor: torch.Tensor, on_release) -> None:
        self.tensor, self.on_release = tensor, on_release

    def __del__(self) -> None:
        self.on_release()


class SavedActivations:
    """Live bytes of the storages autograd saves for backward, and their peak."""

    def __init__(self, model: nn.Module) -> None:
        self.parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
        self.live: dict[int, list[int]] = {}  # storage pointer -> [bytes, saved references]
        self.current = self.peak = 0

    def pack(self, tensor: torch.Tensor) -> Saved:
        key = tensor.untyped_storage().data_ptr()
        if key in self.parameters:
            return Saved(tensor, lambda: None)
        entry = self.live.setdefault(key, [tensor.untyped_storage().nbytes(), 0])
        if entry[1] == 0:
            self.current += entry[0]
            self.peak = max(self.peak, self.current)
        entry[1] += 1
        return Saved(tensor, lambda: self.release(key))

    def release(self, key: int) -> None:
        entry = self.live[key]
        entry[1] -= 1
        if entry[1] == 0:
            self.current -= entry[0]
            del self.live[key]


def buggy_loop(model, optimizer):  # the question's code, without its optimizer step
    losses = []
    optimizer.zero_grad(set_to_none=True)
    for i, (x, y) in enumerate(loader):
        losses.append(loss_fn(model(x), y) / N)
        if (i + 1) % N == 0:
            torch.stack(losses).sum().backward()


def fixed_loop(model, optimizer):
    optimizer.zero_grad(set_to_none=True)
    for x, y in loader:
        (loss_fn(model(x), y) / N).backward()


def run(loop) -> tuple[int, list[torch.Tensor]]:
    """Peak saved-activation bytes over the window, and the gradient at its end."""
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
    model.load_state_dict(START.state_dict())
    meter = SavedActivations(model)
    with torch.autograd.graph.saved_tensors_hooks(meter.pack, lambda saved: saved.tensor):
        loop(model, torch.optim.SGD(model.parameters(), lr=0.1))
    assert meter.current == 0  # everything saved was released by backward
    return meter.peak, [p.grad for p in model.parameters()]


buggy_peak, buggy_grads = run(buggy_loop)
fixed_peak, fixed_grads = run(fixed_loop)
for b, f in zip(buggy_grads, fixed_grads, strict=True):
    assert torch.allclose(b, f, rtol=1e-5, atol=1e-7)  # the same gradient
assert fixed_peak > 0 and buggy_peak == N * fixed_peak, (buggy_peak, fixed_peak)
print(f"peak saved activations: {buggy_peak} bytes with one backward per window, {fixed_peak} per micro-batch")
