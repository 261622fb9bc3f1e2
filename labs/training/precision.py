"""A lab run's numeric precision (config.precision) and the device a size needs.

- fp32: exact float32. TF32 is turned off for matmuls and cuDNN for the run: PyTorch may
  otherwise run float32 matmuls and convolutions in TF32 (10-bit mantissa) on recent GPUs, and
  the gradient-equivalence error the guides promise (~1e-7) would not be what is measured.
- tf32: TF32 allowed for both (CUDA only; on a CPU it would change nothing).
- bf16, fp16: torch.autocast around each micro-batch's forward; the loss is summed in float32
  and the parameters, their gradients and the optimizer state stay float32.
- fp16 adds a GradScaler, used the way accumulation needs it: every micro-batch's (already
  divided) loss is scaled before backward; once per window, unscale_ (before the norm and
  clipping, so they see true gradients), then step (skipped when an inf or NaN was found) and
  update. Each curve point says whether its step was skipped and the scale after update.

The TF32 switches are process-wide: matmul_precision sets them for the run and restores them
after (a worker trains one run at a time).

Activation memory under autocast (metrics.ActivationMeter) includes the 16-bit copies of the
weights that autocast casts and keeps for backward: they are not parameter storages, and they
are memory the run really spends per micro-batch.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch import nn

from .config import GPU_NEEDED, RunConfig, needs_gpu
from .data import TaskData
from .loop import ProgressCallback, _Run, loss_sum
from .metrics import total_norm
from .problems import Problem
from .results import RunResult

AUTOCAST_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def device_class() -> str:
    """What this machine is for validate_config: "cuda" or "cpu"."""
    return "cuda" if torch.cuda.is_available() else "cpu"


@contextlib.contextmanager
def matmul_precision(precision: str) -> Iterator[None]:
    """TF32 for matmuls and cuDNN on only when the run asks for tf32; restored afterwards."""
    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    saved = matmul.allow_tf32, cudnn.allow_tf32
    matmul.allow_tf32 = cudnn.allow_tf32 = precision == "tf32"
    try:
        yield
    finally:
        matmul.allow_tf32, cudnn.allow_tf32 = saved


def make_run(config: RunConfig, model: nn.Module, data: TaskData, device: torch.device, dtype: torch.dtype) -> _Run:
    """The run object for ``config``; refuses settings this device cannot train."""
    field = needs_gpu(config)
    if field is not None and device.type != "cuda":
        raise ValueError(Problem(GPU_NEEDED, setting=f"{field} {getattr(config, field)}"))
    if config.precision in AUTOCAST_DTYPES:
        return MixedPrecisionRun(config, model, data, device, dtype)
    return _Run(config, model, data, device, dtype)


class MixedPrecisionRun(_Run):
    """The lab loop under autocast, with fp16's GradScaler (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.autocast_dtype = AUTOCAST_DTYPES[self.config.precision]
        fp16 = self.config.precision == "fp16"
        self.scaler = torch.amp.GradScaler(self.device.type) if fp16 else None
        self.scale = self.scaler.get_scale() if self.scaler else None
        self.skipped: list[bool] = []

    def _forward(self, model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        with torch.autocast(self.device.type, dtype=self.autocast_dtype):
            logits = model(x)
        return loss_sum(logits.float(), y)  # the sum over many tokens in float32

    def _backward(self, loss: torch.Tensor) -> None:
        (self.scaler.scale(loss) if self.scaler else loss).backward()

    def _clip_and_step(self) -> torch.Tensor:
        if self.scaler is None:
            return super()._clip_and_step()
        self.scaler.unscale_(self.optimizer)  # once per window: the norm and clipping see true gradients
        norm = total_norm([p.grad for p in self.params if p.grad is not None])
        if self.config.grad_clip is not None:
            torch.nn.utils.clip_grads_with_norm_(self.params, self.config.grad_clip, norm)
        self.scaler.step(self.optimizer)  # skipped if unscale_ found inf or NaN
        self.scaler.update()  # lowers the scale exactly when the step was skipped
        scale = self.scaler.get_scale()
        self.skipped.append(scale < self.scale)
        self.scale = scale
        return norm

    def train(
        self, on_progress: ProgressCallback | None, should_stop: Callable[[], bool] | None, keep_model: bool
    ) -> RunResult:
        def annotate(point: dict[str, Any], done: int, total: int) -> None:
            if self.scaler is not None:  # the point is the curve's own dict: the curve keeps these
                point["skipped"] = self.skipped[done - 1]
                point["loss_scale"] = self.scale
            if on_progress is not None:
                on_progress(point, done, total)

        return super().train(annotate, should_stop, keep_model)
