"""The lab's training loop with gradient accumulation.

One optimizer step ("window") = N micro-batches:
  zero gradients once (set_to_none) -> N x (forward, scaled backward) ->
  gradient norm (recorded before clipping) -> optional clipping -> one step.

Loss scalings (what each micro-batch backpropagates):
- "mean": its summed loss / the whole window's sample (digits) or non-padding
  token (tiny-lm, guides-lm) count: exactly the large-batch gradient.
- "sum": its own mean loss, not divided by N: N times too large (classic mistake).
- "mean_of_micro_means": its own mean / N: the pre-fix Transformers behaviour;
  the same as "mean" when every micro-batch holds the same number of items.
The logged loss is always the real mean loss over the window, whatever the scaling.

Curve points, one per optimizer step: {step, loss, grad_norm (before clipping), lr, samples,
tokens (sequence tasks, else None), seconds}, plus {skipped, loss_scale} with fp16 (precision.py).
Validation points {step, loss, accuracy} every max(1, steps // 10) steps and after the last step.

Cancellation: ``should_stop()`` is checked before every step; when it returns
True the run ends and a RunResult with status "cancelled" holding the steps done
so far is returned (nothing is raised; no final validation is run). A
non-finite loss ends the run with status "diverged" (its point has loss None).
Otherwise the status is "finished".

Determinism: the seed fixes model initialization and data order (independent of N, so N = 1
and N = 4 see the same windows). On the CPU a seed gives the same curve bit for bit; on CUDA
some kernels may differ in the last bits.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from .config import CODE_VERSION, RunConfig
from .data import IGNORE_INDEX, TaskData, load_task_data, sample_windows
from .metrics import ActivationMeter, relative_grad_difference, total_norm
from .models import build_model
from .results import RunResult, finite
from .sizes import SIZES

ProgressCallback = Callable[[dict[str, Any], int, int], None]


def run_experiment(
    config: RunConfig,
    *,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
    on_progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    keep_model: bool = False,
    text_dir: Any = None,
) -> RunResult:
    """Train ``config`` and report the curve and metrics (see the module docstring).

    ``device`` defaults to CUDA when available. ``on_progress(point, done, total)``
    is called after every optimizer step; throttle expensive work in the caller.
    With ``config.processes`` > 1 the run is trained by DistributedDataParallel in that many processes
    (labs.training.data_parallel). ``text_dir``: guides-lm's guides (guides_text); precision: precision.py.
    """
    if config.processes > 1:
        from .data_parallel import run_data_parallel  # imports torch.distributed only when needed

        return run_data_parallel(
            config, device=device, dtype=dtype, on_progress=on_progress, should_stop=should_stop, keep_model=keep_model
        )
    dev = _pick_device(device)
    torch.manual_seed(config.seed)  # model initialization
    from .precision import make_run, matmul_precision  # it subclasses _Run

    model = build_model(config.task, config.norm, config.size).to(device=dev, dtype=dtype).train()
    data = load_task_data(config.task, config.seed, context=SIZES[config.size].context, text_dir=text_dir)
    with matmul_precision(config.precision):
        return make_run(config, model, data, dev, dtype).train(on_progress, should_stop, keep_model)


# ---------------------------------------------------------------- internals


def _pick_device(device: str | torch.device | None) -> torch.device:
    if device is None:  # checked at call time: importing this module never touches CUDA
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def describe_device(device: torch.device) -> str:
    if device.type != "cuda":
        return device.type
    index = device.index if device.index is not None else torch.cuda.current_device()
    return f"cuda:{index} {torch.cuda.get_device_name(index)}"


def make_optimizer(config: RunConfig, model: nn.Module) -> torch.optim.Optimizer:
    if config.optimizer == "sgd":
        return torch.optim.SGD(model.parameters(), lr=config.learning_rate, momentum=0.9)
    return torch.optim.AdamW(model.parameters(), lr=config.learning_rate)


def loss_sum(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Summed cross-entropy over samples (digits) or non-padding tokens (tiny-lm)."""
    return F.cross_entropy(logits.flatten(0, -2), targets.flatten(), reduction="sum", ignore_index=IGNORE_INDEX)


class Feed:
    """Training batches on the device, with per-window counts precomputed on the
    CPU so the loop never waits on the device to learn a batch size."""

    def __init__(
        self, data: TaskData, config: RunConfig, device: torch.device, dtype: torch.dtype, rank: int = 0
    ) -> None:
        windows = sample_windows(data.train_size, config.steps, config.effective_batch_size, config.seed)
        share = config.effective_batch_size // config.processes  # a rank's contiguous slice of each window
        windows = windows[:, rank * share : (rank + 1) * share]
        n, m = config.accumulation_steps, config.micro_batch_size
        x = data.train_x
        self.x = x.to(device=device, dtype=dtype if x.is_floating_point() else x.dtype)
        self.y = data.train_y.to(device)
        self.windows = windows.to(device)
        self.n, self.m = n, m
        self.sequence = data.is_sequence
        if data.is_sequence:
            lengths = data.train_lengths[windows].view(config.steps, n, m)
            self.micro_width = lengths.amax(-1).tolist()  # time steps each micro-batch needs
            self.micro_count = lengths.sum(-1).tolist()  # its non-padding tokens
            self.window_width = lengths.amax((1, 2)).tolist()
            self.window_count = lengths.sum((1, 2)).tolist()
        else:
            self.micro_count = [[m] * n for _ in range(config.steps)]
            self.window_count = [n * m] * config.steps

    def micro(self, step: int, j: int) -> tuple[torch.Tensor, torch.Tensor, int]:
        """Micro-batch j of a window as its own tensors (used where memory is measured)."""
        index = self.windows[step, j * self.m : (j + 1) * self.m]
        width = self.micro_width[step][j] if self.sequence else None
        return (*self._take(index, width), self.micro_count[step][j])

    def split(self, step: int) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
        """All micro-batches of a window: one gather, then views (cheaper than N gathers)."""
        if not self.sequence:
            x, y = self._take(self.windows[step], None)
            return x.split(self.m), y.split(self.m)
        x, y = self._take(self.windows[step], self.window_width[step])
        m, widths = self.m, self.micro_width[step]
        xs = [x[j * m : (j + 1) * m, :w] for j, w in enumerate(widths)]
        ys = [y[j * m : (j + 1) * m, :w] for j, w in enumerate(widths)]
        return xs, ys

    def window(self, step: int) -> tuple[torch.Tensor, torch.Tensor, int]:
        width = self.window_width[step] if self.sequence else None
        return (*self._take(self.windows[step], width), self.window_count[step])

    def _take(self, index: torch.Tensor, width: int | None) -> tuple[torch.Tensor, torch.Tensor]:
        if width is None:
            return self.x[index], self.y[index]
        # Trim to the longest sequence: padding sits at the end and the model is causal.
        return self.x[index, :width], self.y[index, :width]


class _Run:
    def __init__(
        self,
        config: RunConfig,
        model: nn.Module,
        data: TaskData,
        device: torch.device,
        dtype: torch.dtype,
        rank: int = 0,
    ) -> None:
        self.config, self.model, self.data = config, model, data
        self.device, self.dtype = device, dtype
        self.params = [p for p in model.parameters()]
        self.optimizer = make_optimizer(config, model)
        self.feed = Feed(data, config, device, dtype, rank)
        self.val_chunks, self.val_count = validation_batches(data, device, dtype)
        self.eval_every = max(1, config.steps // 10)
        self.meter: ActivationMeter | None = None
        self.grad_error: float | None = None
        self.validation_seconds = 0.0
        self.metrics_seconds = 0.0

    # One window --------------------------------------------------------------

    def _divisors(self, step: int) -> list[int]:
        """What each micro-batch's summed loss is divided by before backward."""
        counts, n = self.feed.micro_count[step], self.feed.n
        if self.config.loss_scaling == "mean":
            return [self.feed.window_count[step]] * n
        if self.config.loss_scaling == "sum":
            return counts  # each micro-batch's own mean, never divided by N
        return [count * n for count in counts]  # mean_of_micro_means

    def _forward(self, model: nn.Module, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return loss_sum(model(x), y)  # summed loss; precision.MixedPrecisionRun adds autocast

    def _backward(self, loss: torch.Tensor) -> None:  # MixedPrecisionRun scales it first with fp16
        loss.backward()

    def _window(self, step: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Accumulate one window and step; returns (mean window loss, grad norm) as tensors.
        This is the hot path: no host syncs, no per-micro-batch bookkeeping."""
        self.optimizer.zero_grad(set_to_none=True)
        xs, ys = self.feed.split(step)
        total = None
        for x, y, divisor in zip(xs, ys, self._divisors(step), strict=True):
            summed = self._forward(self.model, x, y)
            self._backward(summed / divisor)
            total = summed.detach() if total is None else total + summed.detach()
        return total / self.feed.window_count[step], self._clip_and_step()

    def _first_window(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Window 0, measured: activation memory of each micro-batch and the
        accumulated gradient against the full-batch one."""
        self.optimizer.zero_grad(set_to_none=True)
        started = time.perf_counter()
        reference = self._full_batch_gradients()
        self.metrics_seconds += time.perf_counter() - started
        if self.device.type == "cuda":
            # Backward accumulates into existing gradients in place, so allocating
            # them now keeps them out of the activation measurement (0 + g == g).
            for p in self.params:
                p.grad = torch.zeros_like(p)
        self.meter = ActivationMeter(self.model, self.device)
        total = None
        for j, divisor in enumerate(self._divisors(0)):
            x, y, _ = self.feed.micro(0, j)  # own tensors: a view would count the whole window
            with self.meter.track():
                summed = self._forward(self.model, x, y)
                self._backward(summed / divisor)
            total = summed.detach() if total is None else total + summed.detach()
        started = time.perf_counter()
        self.grad_error = relative_grad_difference((p.grad for p in self.params), reference)
        self.metrics_seconds += time.perf_counter() - started
        return total / self.feed.window_count[0], self._clip_and_step()

    def _clip_and_step(self) -> torch.Tensor:
        """Norm of the accumulated gradient (returned, before clipping), clip, step."""
        norm = total_norm([p.grad for p in self.params if p.grad is not None])
        if self.config.grad_clip is not None:
            torch.nn.utils.clip_grads_with_norm_(self.params, self.config.grad_clip, norm)
        self.optimizer.step()
        return norm

    def _full_batch_gradients(self) -> list[torch.Tensor | None]:
        """Gradient of the correct window loss on a copy of the model in its
        current state, so the real model's BatchNorm statistics are untouched."""
        twin = copy.deepcopy(self.model)
        x, y, count = self.feed.window(0)
        self._backward(self._forward(twin, x, y) / count)
        return [p.grad for p in twin.parameters()]

    def _read(self, loss: torch.Tensor, norm: torch.Tensor) -> tuple[float, float]:
        if self.device.type == "cpu":
            return loss.item(), norm.item()  # no sync to save on the CPU; stacking costs more
        values = torch.stack([loss, norm.to(loss.dtype)]).tolist()  # one device sync per step
        return values[0], values[1]

    # Validation ----------------------------------------------------------------

    @torch.inference_mode()
    def _evaluate(self) -> tuple[float, float]:
        """Mean loss and accuracy (per token for tiny-lm) on the validation set."""
        self.model.eval()  # BatchNorm uses its running statistics
        totals = torch.zeros(2, dtype=torch.float64, device=self.device)
        for x, y in self.val_chunks:
            logits = self.model(x)
            correct = ((logits.argmax(-1) == y) & (y != IGNORE_INDEX)).sum()
            totals += torch.stack([loss_sum(logits, y).double(), correct.double()])
        self.model.train()
        loss, correct = totals.tolist()  # one sync
        return loss / self.val_count, correct / self.val_count

    # The run -------------------------------------------------------------------

    def train(
        self, on_progress: ProgressCallback | None, should_stop: Callable[[], bool] | None, keep_model: bool
    ) -> RunResult:
        config = self.config
        curve: list[dict[str, Any]] = []
        validation: list[dict[str, Any]] = []
        status, lr = "finished", self.optimizer.param_groups[0]["lr"]
        samples = tokens = 0
        start = time.perf_counter()
        for step in range(config.steps):
            if should_stop is not None and should_stop():
                status = "cancelled"
                break
            loss, norm = self._read(*(self._window(step) if step else self._first_window()))
            samples += config.effective_batch_size
            if self.feed.sequence:
                tokens += self.feed.window_count[step]
            point = {
                "step": step + 1,
                "loss": finite(loss),
                "grad_norm": finite(norm),
                "lr": lr,
                "samples": samples,
                "tokens": tokens if self.feed.sequence else None,
                "seconds": round(time.perf_counter() - start, 6),
            }
            curve.append(point)
            if not math.isfinite(loss):
                status = "diverged"
            elif (step + 1) % self.eval_every == 0 or step + 1 == config.steps:
                validation.append(self._validation_point(step + 1))
            if on_progress is not None:
                on_progress(point, step + 1, config.steps)
            if status == "diverged":
                break
        wall = time.perf_counter() - start
        return self._result(status, curve, validation, samples, tokens, wall, keep_model)

    def _validation_point(self, step: int) -> dict[str, Any]:
        started = time.perf_counter()
        loss, accuracy = self._evaluate()
        self.validation_seconds += time.perf_counter() - started
        return {"step": step, "loss": finite(loss), "accuracy": accuracy}

    def _result(
        self, status: str, curve: list, validation: list, samples: int, tokens: int, wall: float, keep_model: bool
    ) -> RunResult:
        last_val = validation[-1] if validation else {}
        return RunResult(
            config=self.config.to_dict(),
            status=status,
            steps_done=len(curve),
            curve=curve,
            validation=validation,
            final_loss=curve[-1]["loss"] if curve else None,
            val_loss=last_val.get("loss"),
            val_accuracy=last_val.get("accuracy"),
            device=describe_device(self.device),
            torch_version=torch.__version__,
            code_version=CODE_VERSION,
            dtype=str(self.dtype).removeprefix("torch."),
            parameter_count=sum(p.numel() for p in self.params),
            wall_seconds=wall,
            validation_seconds=self.validation_seconds,
            metrics_seconds=self.metrics_seconds,
            samples_per_second=samples / wall if wall > 0 else 0.0,
            tokens_per_second=(tokens / wall if wall > 0 else 0.0) if self.feed.sequence else None,
            peak_activation_bytes=self.meter.peak if self.meter else None,
            activation_memory_method=self.meter.method if self.meter else None,
            grad_equivalence_error=self.grad_error,
            model=self.model if keep_model else None,
        )


def validation_batches(
    data: TaskData, device: torch.device, dtype: torch.dtype, chunk: int = 32
) -> tuple[list[tuple[torch.Tensor, torch.Tensor]], int]:
    """Validation batches on the device and the number of items they score.
    Sequences are sorted by length and each chunk trimmed to its longest, which
    skips most of the padding (the model is causal, so results are unchanged)."""
    x = data.val_x.to(dtype=dtype) if data.val_x.is_floating_point() else data.val_x
    if not data.is_sequence:
        return [(x.to(device), data.val_y.to(device))], len(data.val_y)
    order = torch.argsort(data.val_lengths, stable=True)
    chunks = []
    for index in order.split(chunk):
        width = int(data.val_lengths[index].max())
        chunks.append((x[index, :width].to(device), data.val_y[index, :width].to(device)))
    return chunks, int(data.val_lengths.sum())
