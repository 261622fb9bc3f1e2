"""Claim: three libraries divide the loss by the accumulation factor themselves, so dividing it in
your own code as well divides twice and leaves the gradient N times too small:
- Accelerate: `accelerator.backward(loss)` divides by `gradient_accumulation_steps`
  (https://github.com/huggingface/accelerate/blob/v1.15.0/src/accelerate/accelerator.py#L2849-L2851);
- Lightning, automatic optimization with `accumulate_grad_batches=N`: the loss `training_step`
  returns is divided by N
  (https://github.com/Lightning-AI/pytorch-lightning/blob/2.6.6/src/lightning/pytorch/loops/optimization/automatic.py#L83);
- DeepSpeed, default `scale_wrt_gas=True`: the engine's `forward` hooks its output
  (`register_output_backward_hooks`, engine.py L2267-L2272) and the hook divides the incoming
  gradient by the accumulation steps (`_backward_prologue_per_tensor`, L2392-L2396), whether you
  call `engine.backward(loss)` or `loss.backward()`
  (https://github.com/deepspeedai/DeepSpeed/blob/v0.18.5/deepspeed/runtime/engine.py#L2392-L2396,
  https://github.com/deepspeedai/DeepSpeed/blob/v0.18.5/deepspeed/runtime/utils.py#L1300-L1312).
A plain PyTorch loop that divides each loss by N divides once. The Trainer driving DeepSpeed passes
`scale_wrt_gas=False`, since it has normalized the loss already (transformers 5.24.0,
`Trainer.training_step`, PR #35808), and Accelerate leaves the division to DeepSpeed's engine then.

Accelerate and Lightning (pinned) run here on the CPU in one process. DeepSpeed is not in the
project's environment (requirements-dev.txt does not pin it), so its part runs the
mechanism of the v0.18.5 lines above, copied in `DeepSpeedHook`: a hook on the forward's output that
divides the gradient by the accumulation steps. The Trainer's part reads the installed
transformers' own source. Used by: final exam `x-divided-twice`, `x-grad-norm-drops-by-n`,
`x-accelerate-loop-order`; gradient-accumulation-in-practice quiz `deepspeed-double-scaling`.
"""

import inspect
import logging
import warnings

import lightning as L
import torch
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from transformers import Trainer

N, MICRO = 4, 8
torch.manual_seed(0)
X = torch.randn(N * MICRO, 5, dtype=torch.float64)
Y = torch.randn(N * MICRO, 1, dtype=torch.float64)
START = nn.Linear(5, 1).double()
loss_fn = nn.MSELoss()
logging.getLogger("lightning").setLevel(logging.ERROR)
warnings.filterwarnings("ignore")


def fresh_model() -> nn.Module:
    model = nn.Linear(5, 1).double()
    model.load_state_dict(START.state_dict())
    return model


def full_batch_gradient() -> list[torch.Tensor]:
    """The mean gradient of the window's N * MICRO examples: what one optimizer step should use."""
    model = fresh_model()
    loss_fn(model(X), Y).backward()
    return [p.grad for p in model.parameters()]


def first_step_gradient(optimizer: torch.optim.Optimizer, model: nn.Module, seen: list) -> None:
    optimizer.register_step_pre_hook(lambda *_: seen.append([p.grad.clone() for p in model.parameters()]))


def plain(divide: bool) -> list[torch.Tensor]:
    model = fresh_model()
    for x, y in zip(X.chunk(N), Y.chunk(N), strict=True):
        loss = loss_fn(model(x), y)
        (loss / N if divide else loss).backward()
    return [p.grad for p in model.parameters()]


def accelerate(divide: bool) -> list[torch.Tensor]:
    accelerator = Accelerator(cpu=True, gradient_accumulation_steps=N)
    model, seen = fresh_model(), []
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    first_step_gradient(optimizer, model, seen)
    loader = DataLoader(TensorDataset(X, Y), batch_size=MICRO, shuffle=False)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        with accelerator.accumulate(model):
            loss = loss_fn(model(x), y)
            accelerator.backward(loss / N if divide else loss)
            optimizer.step()
            optimizer.zero_grad()
    return seen[0]


def lightning(divide: bool) -> list[torch.Tensor]:
    seen = []

    class Regression(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = fresh_model()

        def training_step(self, batch, batch_idx):
            loss = loss_fn(self.net(batch[0]), batch[1])
            return loss / N if divide else loss

        def on_before_optimizer_step(self, optimizer):  # after the window's last backward, inside step()
            seen.append([p.grad.clone() for p in self.net.parameters()])

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    trainer = L.Trainer(
        accelerator="cpu",
        max_steps=1,  # one optimizer step: one window of N micro-batches
        accumulate_grad_batches=N,
        precision="64-true",
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(Regression(), DataLoader(TensorDataset(X, Y), batch_size=MICRO, shuffle=False))
    return seen[0]


class DeepSpeedHook:
    """DeepSpeed v0.18.5's scaling: `forward` registers, on the module's output, a hook that returns
    `grad / self.gradient_accumulation_steps()` while `_scale_wrt_gas` is True (its default)."""

    def __init__(self, module: nn.Module, gradient_accumulation_steps: int, scale_wrt_gas: bool = True):
        self.module, self.gas, self._scale_wrt_gas = module, gradient_accumulation_steps, scale_wrt_gas

    def _backward_prologue_per_tensor(self, grad):
        if grad is not None and self._scale_wrt_gas:
            return grad / self.gas
        return grad

    def __call__(self, x, y):
        loss = loss_fn(self.module(x), y)
        loss.register_hook(self._backward_prologue_per_tensor)
        return loss

    def backward(self, loss):
        loss.backward()


def deepspeed(divide: bool) -> list[torch.Tensor]:
    engine = DeepSpeedHook(fresh_model(), gradient_accumulation_steps=N)
    for x, y in zip(X.chunk(N), Y.chunk(N), strict=True):
        loss = engine(x, y)
        engine.backward(loss / N if divide else loss)
    return [p.grad for p in engine.module.parameters()]


def close(a, b) -> bool:
    return all(torch.allclose(u, v, rtol=1e-12, atol=1e-15) for u, v in zip(a, b, strict=True))


mean = full_batch_gradient()
assert close(plain(divide=True), mean)  # a plain loop: one division, your own
assert close(plain(divide=False), [N * g for g in mean])
for name, run in (("Accelerate", accelerate), ("Lightning", lightning), ("DeepSpeed", deepspeed)):
    assert close(run(divide=False), mean), name  # the library's division alone: the mean gradient
    assert close(run(divide=True), [g / N for g in mean]), name  # yours on top: N times too small
# The Trainer turns DeepSpeed's division off, having normalized the loss itself.
source = inspect.getsource(Trainer.training_step)
assert "DistributedType.DEEPSPEED" in source and 'kwargs["scale_wrt_gas"] = False' in source
print(f"Accelerate, Lightning, DeepSpeed: your / {N} on top of theirs leaves the gradient {N} times too small")
