"""Benchmark the lab's training loop against a bare hand-written accumulation loop.

Both run in this process on the same config (model, data, windows, N), side by
side and interleaved (alternating which goes first) because the machine is
shared and noisy; the median over rounds is reported. Each timing covers a whole
run including its setup: for the lab, run_experiment with its curve, gradient
norms, first-step metrics and validation passes; for the bare loop, model,
optimizer, the training loop with one loss .item() per step (what any loop that
logs a curve pays) and the same validation schedule (every steps // 10 steps and
at the end, whole validation set), so both do the same work. A second ratio
leaves the validation passes out of both timings. On the CPU a third uses the
process's CPU time instead of wall time: with one thread it is far less
disturbed by other programs on a shared machine.

Then the activation memory the lab measures for N = 1, 2, 4, 8 at a fixed
effective batch, next to the ideal 1/N.

    .venv/bin/python bench/trainer.py [--task digits-cnn] [--rounds 5] [--steps 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

import torch
import torch.nn.functional as F

from labs.training.config import RunConfig
from labs.training.data import IGNORE_INDEX, load_task_data, sample_windows
from labs.training.loop import make_optimizer, run_experiment, validation_batches
from labs.training.models import build_model

TASK_DEFAULTS = {
    "digits-cnn": {"effective_batch_size": 64, "optimizer": "sgd", "learning_rate": 0.05},
    "digits-mlp": {"effective_batch_size": 64, "optimizer": "sgd", "learning_rate": 0.05},
    "tiny-lm": {"effective_batch_size": 32, "optimizer": "adamw", "learning_rate": 3e-3},
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=sorted(TASK_DEFAULTS), default="digits-cnn")
    parser.add_argument("--norm", default="none", choices=["none", "batch", "layer", "group"])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=None, help="effective batch (default per task)")
    parser.add_argument("--accumulation", type=int, default=4, help="N for the speed comparison")
    parser.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch CPU threads (default 1: tiny models gain nothing from more, "
        "and OpenMP spinning on a busy machine is very noisy)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    return parser.parse_args(argv)


def make_config(args: argparse.Namespace, **changes: Any) -> RunConfig:
    values = dict(
        task=args.task,
        norm=args.norm,
        accumulation_steps=args.accumulation,
        loss_scaling="mean",
        steps=args.steps,
        seed=0,
        grad_clip=None,
        **TASK_DEFAULTS[args.task],
    )
    if args.batch is not None:
        values["effective_batch_size"] = args.batch
    values.update(changes)
    return RunConfig(**values)


def bare_run(config: RunConfig, device: torch.device) -> tuple[list[float], float]:
    """The textbook loop, hand-written: same model, data order, loss normalization and
    validation schedule. Returns the loss curve and the seconds spent validating."""
    torch.manual_seed(config.seed)
    model = build_model(config.task, config.norm).to(device).train()
    optimizer = make_optimizer(config, model)
    data = load_task_data(config.task, config.seed)
    windows = sample_windows(data.train_size, config.steps, config.effective_batch_size, config.seed)
    n, m = config.accumulation_steps, config.micro_batch_size
    x, y = data.train_x.to(device), data.train_y.to(device)
    val_batches, _ = validation_batches(data, device, torch.float32)  # the lab's chunks: same work
    every, val_seconds = max(1, config.steps // 10), 0.0
    if data.is_sequence:  # per micro-batch: width to keep and tokens, from the CPU copy
        lengths = data.train_lengths[windows].view(config.steps, n, m)
        widths, totals = lengths.amax(-1).tolist(), lengths.sum((1, 2)).tolist()
    else:
        widths, totals = None, [config.effective_batch_size] * config.steps
    windows = windows.to(device)
    losses = []
    for step in range(config.steps):
        optimizer.zero_grad(set_to_none=True)
        total = 0.0
        for j in range(n):
            index = windows[step, j * m : (j + 1) * m]
            if widths is None:
                xb, yb = x[index], y[index]
            else:
                xb, yb = x[index, : widths[step][j]], y[index, : widths[step][j]]
            logits = model(xb)
            loss = (
                F.cross_entropy(logits.flatten(0, -2), yb.flatten(), reduction="sum", ignore_index=IGNORE_INDEX)
                / totals[step]
            )
            loss.backward()
            total = total + loss.detach()
        optimizer.step()
        losses.append(float(total))
        if (step + 1) % every == 0 or step + 1 == config.steps:
            started = time.perf_counter()
            bare_validate(model, val_batches)
            val_seconds += time.perf_counter() - started
    return losses, val_seconds


@torch.inference_mode()
def bare_validate(model: torch.nn.Module, batches: list[tuple[torch.Tensor, torch.Tensor]]) -> tuple[float, float]:
    model.eval()
    loss = correct = count = 0.0
    for x, y in batches:
        logits = model(x)
        real = y != IGNORE_INDEX
        loss += F.cross_entropy(logits.flatten(0, -2), y.flatten(), reduction="sum", ignore_index=IGNORE_INDEX).item()
        correct += ((logits.argmax(-1) == y) & real).sum().item()
        count += real.sum().item()
    model.train()
    return loss / count, correct / count


def lab_run(config: RunConfig, device: torch.device) -> tuple[list[float], float]:
    result = run_experiment(config, device=device)
    return [p["loss"] for p in result.curve], result.validation_seconds


MEASURES = {
    "wall": "whole run, wall time",
    "wall_without_validation": "validation left out",
    "cpu": "whole run, CPU time",
}


def timed(fn: Any, config: RunConfig, device: torch.device) -> dict[str, float]:
    """Optimizer steps per second under each measure."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    start, cpu_start = time.perf_counter(), time.process_time()
    _, val_seconds = fn(config, device)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    rates = {"wall": config.steps / elapsed, "wall_without_validation": config.steps / (elapsed - val_seconds)}
    if device.type == "cpu":  # on a GPU the host's CPU time says nothing about speed
        rates["cpu"] = config.steps / cpu
    return rates


def speed(args: argparse.Namespace, device: torch.device) -> dict[str, Any]:
    config = make_config(args)
    warm = config.replace(steps=min(5, config.steps))
    lab_run(warm, device), bare_run(warm, device)  # load data, warm caches and kernels
    # Sanity: both loops train the same way (float32, so a tolerance).
    lab_losses, bare_losses = lab_run(warm, device)[0], bare_run(warm, device)[0]
    max_diff = max(abs(a - b) for a, b in zip(lab_losses, bare_losses, strict=True))
    timings: dict[str, list[dict[str, float]]] = {"lab": [], "bare": []}
    for round_index in range(args.rounds):
        order = [("lab", lab_run), ("bare", bare_run)]
        if round_index % 2:
            order.reverse()  # neither loop always runs first
        for name, fn in order:
            timings[name].append(timed(fn, config, device))
    report: dict[str, Any] = {"config": config.to_dict(), "warmup_loss_max_abs_difference": max_diff, "measures": {}}
    for measure in timings["lab"][0]:
        lab = [t[measure] for t in timings["lab"]]
        bare = [t[measure] for t in timings["bare"]]
        report["measures"][measure] = {
            "lab_steps_per_second": lab,
            "bare_steps_per_second": bare,
            "ratio_of_medians": statistics.median(lab) / statistics.median(bare),
            "median_paired_ratio": statistics.median(a / b for a, b in zip(lab, bare, strict=True)),
        }
    return report


def memory(args: argparse.Namespace, device: torch.device) -> list[dict[str, Any]]:
    rows = []
    for n in (1, 2, 4, 8):
        config = make_config(args, accumulation_steps=n, steps=1)
        result = run_experiment(config, device=device)
        rows.append(
            {
                "accumulation_steps": n,
                "micro_batch_size": config.micro_batch_size,
                "peak_activation_bytes": result.peak_activation_bytes,
                "method": result.activation_memory_method,
            }
        )
    base = rows[0]["peak_activation_bytes"]
    for row in rows:
        row["ratio"] = row["peak_activation_bytes"] / base
        row["ideal"] = 1 / row["accumulation_steps"]
    return rows


def print_report(device: str, run: dict[str, Any], mem: list[dict[str, Any]]) -> None:
    c = run["config"]
    print(f"device {device}, torch {torch.__version__}, threads {torch.get_num_threads()}")
    print(
        f"task {c['task']}, norm {c['norm']}, effective batch {c['effective_batch_size']} = "
        f"{c['accumulation_steps']} x {c['effective_batch_size'] // c['accumulation_steps']}, "
        f"{c['steps']} steps, {len(run['measures']['wall']['lab_steps_per_second'])} rounds (interleaved)\n"
    )
    print(f"{'optimizer steps/s':<36}{'median':>9}{'min':>9}{'max':>9}")
    for measure, numbers in run["measures"].items():
        for name in ("lab", "bare"):
            values = numbers[f"{name}_steps_per_second"]
            label = f"{name}, {MEASURES[measure]}"
            print(f"{label:<36}{statistics.median(values):>9.1f}{min(values):>9.1f}{max(values):>9.1f}")
        print(
            f"{'  lab / bare':<36}{numbers['ratio_of_medians']:>9.3f}   (median of per-round ratios "
            f"{numbers['median_paired_ratio']:.3f}; aim >= 0.97)"
        )
    print(f"\nwarm-up curves agree to {run['warmup_loss_max_abs_difference']:.2e} (max abs loss difference)\n")
    print(f"activation memory at effective batch {c['effective_batch_size']} ({mem[0]['method']}):")
    print(f"{'N':>3}{'micro':>7}{'bytes':>14}{'ratio':>9}{'ideal 1/N':>11}")
    for row in mem:
        print(
            f"{row['accumulation_steps']:>3}{row['micro_batch_size']:>7}{row['peak_activation_bytes']:>14,}"
            f"{row['ratio']:>9.3f}{row['ideal']:>11.3f}"
        )


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    run = speed(args, device)
    mem = memory(args, device)
    device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    print_report(device_name, run, mem)
    if args.json:
        payload = {
            "device": device_name,
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "speed": run,
            "memory": mem,
        }
        args.json.write_text(json.dumps(payload, indent=2))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
