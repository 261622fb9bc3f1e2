"""The loops the benches hold the lab trainer against, on the lab's own model, data and windows.

- bare_run: the textbook accumulation loop, written by hand (nanoGPT's shape): per micro-batch a
  forward (under autocast for bf16 and fp16), its summed loss divided by the window's sample or
  token count, a backward (scaled for fp16); one step per window (unscale, step and update for
  fp16). One loss .item() per step, what any loop that logs a curve pays.
- accelerate_run: the same loop through HF Accelerate's `accumulate` (float32 only). Accelerate's
  backward divides the loss by N itself, so each micro-batch passes N times the lab's term.

Both run the lab's validation schedule (every steps // 10 steps and after the last, on the lab's
validation chunks), so they do the same work as run_experiment apart from its metrics (step 1's
full-batch reference gradient and activation meter, a gradient norm per step). The seconds after
each step, counted like the lab's curve points, give a steady rate from step 1 to the last.
Plain PyTorch and labs.training, no Django.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import nn

from labs.training.config import RunConfig
from labs.training.data import IGNORE_INDEX, TaskData, load_task_data, sample_windows
from labs.training.loop import loss_sum, make_optimizer, matmul_precision, validation_batches
from labs.training.models import build_model
from labs.training.sizes import SIZES

AUTOCAST = {"bf16": torch.bfloat16, "fp16": torch.float16}


@dataclass
class LoopRun:
    """What a reference loop reports, shaped like the lab's curve: one entry per optimizer step."""

    losses: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # after each step, from the start of training
    samples: list[int] = field(default_factory=list)  # cumulative
    tokens: list[int] = field(default_factory=list)  # cumulative non-padding tokens (sequence tasks)
    validation_seconds: float = 0.0
    model: nn.Module | None = None


@dataclass
class _Setup:
    model: nn.Module
    data: TaskData
    windows: torch.Tensor  # [steps, effective batch] indexes, on the device
    widths: list[list[int]] | None  # per step and micro-batch: the time steps it needs (sequences)
    totals: list[int]  # per step: the window's samples or tokens, what each summed loss is divided by
    x: torch.Tensor
    y: torch.Tensor
    val_batches: list[tuple[torch.Tensor, torch.Tensor]]


def _setup(config: RunConfig, device: torch.device, text_dir: Any) -> _Setup:
    torch.manual_seed(config.seed)  # the lab's initialization
    model = build_model(config.task, config.norm, config.size).to(device).train()
    data = load_task_data(config.task, config.seed, context=SIZES[config.size].context, text_dir=text_dir)
    windows = sample_windows(data.train_size, config.steps, config.effective_batch_size, config.seed)
    n, m = config.accumulation_steps, config.micro_batch_size
    if data.is_sequence:  # from the CPU copy, so the loop never waits on the device for a count
        lengths = data.train_lengths[windows].view(config.steps, n, m)
        widths, totals = lengths.amax(-1).tolist(), lengths.sum((1, 2)).tolist()
    else:
        widths, totals = None, [config.effective_batch_size] * config.steps
    val_batches, _count = validation_batches(data, device, torch.float32)
    x, y = data.train_x.to(device), data.train_y.to(device)
    return _Setup(model, data, windows.to(device), widths, totals, x, y, val_batches)


def _micro(s: _Setup, config: RunConfig, step: int, j: int) -> tuple[torch.Tensor, torch.Tensor]:
    m = config.micro_batch_size
    index = s.windows[step, j * m : (j + 1) * m]
    if s.widths is None:
        return s.x[index], s.y[index]
    width = s.widths[step][j]
    return s.x[index, :width], s.y[index, :width]


def _record(run: LoopRun, s: _Setup, config: RunConfig, step: int, loss: float, start: float) -> None:
    run.losses.append(loss)
    run.seconds.append(time.perf_counter() - start)
    run.samples.append(config.effective_batch_size * (step + 1))
    run.tokens.append((run.tokens[-1] if run.tokens else 0) + (s.totals[step] if s.widths is not None else 0))
    if (step + 1) % max(1, config.steps // 10) == 0 or step + 1 == config.steps:
        started = time.perf_counter()
        validate(s.model, s.val_batches)
        run.validation_seconds += time.perf_counter() - started


def bare_run(config: RunConfig, device: torch.device, *, text_dir: Any = None) -> LoopRun:
    """The hand-written accumulation loop (see the module docstring)."""
    s = _setup(config, device, text_dir)
    optimizer = make_optimizer(config, s.model)
    dtype = AUTOCAST.get(config.precision)
    scaler = torch.amp.GradScaler(device.type) if config.precision == "fp16" else None
    run = LoopRun(model=s.model)
    with matmul_precision(config.precision):  # float32 means float32, as in the lab
        start = time.perf_counter()
        for step in range(config.steps):
            optimizer.zero_grad(set_to_none=True)
            total = None
            for j in range(config.accumulation_steps):
                xb, yb = _micro(s, config, step, j)
                with torch.autocast(device.type, dtype=dtype) if dtype else contextlib.nullcontext():
                    logits = s.model(xb)
                loss = loss_sum(logits.float(), yb) / s.totals[step]
                (scaler.scale(loss) if scaler else loss).backward()
                total = loss.detach() if total is None else total + loss.detach()
            if config.grad_clip is not None:
                if scaler:
                    scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(s.model.parameters(), config.grad_clip)
            if scaler:
                scaler.step(optimizer)
                scaler.update()
            else:
                optimizer.step()
            _record(run, s, config, step, float(total), start)
    return run


def accelerate_run(config: RunConfig, device: torch.device, *, text_dir: Any = None) -> LoopRun:
    """The same loop through Accelerate's `accumulate` (float32; see the module docstring)."""
    from accelerate import Accelerator  # imported here: only this comparison needs it

    if config.precision != "fp32":
        raise ValueError("the Accelerate comparison trains in float32 only")
    s = _setup(config, device, text_dir)
    n = config.accumulation_steps
    accelerator = Accelerator(gradient_accumulation_steps=n, cpu=device.type == "cpu", mixed_precision="no")
    model, optimizer = accelerator.prepare(s.model, make_optimizer(config, s.model))
    run = LoopRun(model=accelerator.unwrap_model(model))
    with matmul_precision(config.precision):  # float32 means float32, as in the lab
        start = time.perf_counter()
        for step in range(config.steps):
            total = None
            for j in range(n):
                with accelerator.accumulate(model):  # steps and zeroes on the window's last micro-batch only
                    xb, yb = _micro(s, config, step, j)
                    loss = loss_sum(model(xb), yb) / s.totals[step]
                    accelerator.backward(loss * n)  # Accelerate divides by N again
                    if config.grad_clip is not None and accelerator.sync_gradients:
                        accelerator.clip_grad_norm_(model.parameters(), config.grad_clip)
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=True)
                total = loss.detach() if total is None else total + loss.detach()
            _record(run, s, config, step, float(total), start)
    return run


@torch.inference_mode()
def validate(model: nn.Module, batches: list[tuple[torch.Tensor, torch.Tensor]]) -> tuple[float, float]:
    """Mean loss and accuracy over the validation chunks, like the lab's pass."""
    model.eval()
    loss = correct = count = 0.0
    for x, y in batches:
        logits = model(x)
        real = y != IGNORE_INDEX
        loss += loss_sum(logits, y).item()
        correct += ((logits.argmax(-1) == y) & real).sum().item()
        count += real.sum().item()
    model.train()
    return loss / count, correct / count


def steady_rate(seconds: list[float], counts: list[int]) -> float | None:
    """Samples or tokens per second from the end of step 1 to the end of the last step."""
    if len(seconds) < 2 or seconds[-1] <= seconds[0]:
        return None
    return (counts[-1] - counts[0]) / (seconds[-1] - seconds[0])


def max_weight_difference(a: nn.Module, b: nn.Module) -> float:
    """The largest absolute difference between two models' parameters, relative to the largest weight."""
    diff = max((p - q).abs().max().item() for p, q in zip(a.parameters(), b.parameters(), strict=True))
    scale = max(p.abs().max().item() for p in a.parameters())
    return diff / scale if scale else diff
