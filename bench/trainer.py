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

Then the same comparison against HF Accelerate's `accumulate` (bench/bare_loop.py's
accelerate_run): the weights after K steps of the lab and of Accelerate, from the same
initialization and data, must be equal (the largest difference, relative to the largest weight,
is reported with its verdict against ACCELERATE_TOLERANCE), and the speed ratio over the
same interleaved rounds is reported.

Then the activation memory the lab measures for N = 1, 2, 4, 8 at a fixed
effective batch, next to the ideal 1/N.

Tasks: digits-cnn, digits-mlp, tiny-lm, and guides-lm (the transformer on the guides' text, size
tiny on a CPU, --size for a GPU).

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

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bare_loop beside this file

import torch
from bare_loop import accelerate_run, bare_run, max_weight_difference

from labs.training.config import RunConfig
from labs.training.loop import run_experiment
from labs.training.sizes import SIZES

TASK_DEFAULTS = {
    "digits-cnn": {"effective_batch_size": 64, "optimizer": "sgd", "learning_rate": 0.05},
    "digits-mlp": {"effective_batch_size": 64, "optimizer": "sgd", "learning_rate": 0.05},
    "tiny-lm": {"effective_batch_size": 32, "optimizer": "adamw", "learning_rate": 3e-3},
    "guides-lm": {"effective_batch_size": 16, "optimizer": "adamw", "learning_rate": 3e-3},
}
DEFAULT_NORM = {"guides-lm": "layer"}  # a transformer's own norm; the others default to none
ACCELERATE_TOLERANCE = 1e-6  # float32: the two loops add the same terms in the same order


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=sorted(TASK_DEFAULTS), default="digits-cnn")
    parser.add_argument("--norm", default=None, choices=["none", "batch", "layer", "group", "rms"])
    parser.add_argument("--size", default="tiny", choices=list(SIZES), help="guides-lm's size")
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
    parser.add_argument("--weight-steps", type=int, default=20, help="K: steps before the weights are compared")
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    return parser.parse_args(argv)


def make_config(args: argparse.Namespace, **changes: Any) -> RunConfig:
    values = dict(
        task=args.task,
        norm=args.norm or DEFAULT_NORM.get(args.task, "none"),
        accumulation_steps=args.accumulation,
        loss_scaling="mean",
        steps=args.steps,
        seed=0,
        grad_clip=None,
        **TASK_DEFAULTS[args.task],
    )
    if args.task == "guides-lm":
        values["size"] = args.size
    if args.batch is not None:
        values["effective_batch_size"] = args.batch
    values.update(changes)
    return RunConfig(**values)


def bare(config: RunConfig, device: torch.device) -> tuple[list[float], float]:
    """The textbook loop, hand-written (bench/bare_loop.py): its losses and seconds validating."""
    run = bare_run(config, device)
    return run.losses, run.validation_seconds


def accelerate(config: RunConfig, device: torch.device) -> tuple[list[float], float]:
    run = accelerate_run(config, device)
    return run.losses, run.validation_seconds


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


LOOPS = {"lab": lab_run, "bare": bare, "accelerate": accelerate}


def speed(args: argparse.Namespace, device: torch.device) -> tuple[dict[str, Any], dict[str, Any]]:
    """The lab against the bare loop, and against Accelerate, over the same interleaved rounds."""
    config = make_config(args)
    warm = config.replace(steps=min(5, config.steps))
    for fn in LOOPS.values():
        fn(warm, device)  # load data, warm caches and kernels
    # Sanity: the loops train the same way (float32, so a tolerance).
    warm_losses = {name: fn(warm, device)[0] for name, fn in LOOPS.items()}
    timings: dict[str, list[dict[str, float]]] = {name: [] for name in LOOPS}
    names = list(LOOPS)
    for round_index in range(args.rounds):
        turn = round_index % len(names)  # each loop takes each place in the order in turn
        for name in names[turn:] + names[:turn]:
            timings[name].append(timed(LOOPS[name], config, device))
    runs = {}
    for other in ("bare", "accelerate"):
        runs[other] = {
            "config": config.to_dict(),
            "warmup_loss_max_abs_difference": max(
                abs(a - b) for a, b in zip(warm_losses["lab"], warm_losses[other], strict=True)
            ),
            "measures": _ratios(timings["lab"], timings[other], other),
        }
    return runs["bare"], runs["accelerate"]


def _ratios(lab_timings: list[dict[str, float]], other_timings: list[dict[str, float]], other: str) -> dict:
    measures = {}
    for measure in lab_timings[0]:
        lab = [t[measure] for t in lab_timings]
        theirs = [t[measure] for t in other_timings]
        measures[measure] = {
            "lab_steps_per_second": lab,
            f"{other}_steps_per_second": theirs,
            "ratio_of_medians": statistics.median(lab) / statistics.median(theirs),
            "median_paired_ratio": statistics.median(a / b for a, b in zip(lab, theirs, strict=True)),
        }
    return measures


def same_weights(args: argparse.Namespace, device: torch.device) -> dict[str, Any]:
    """The weights after K steps of the lab's loop and of Accelerate's `accumulate`, compared."""
    config = make_config(args, steps=args.weight_steps)
    lab = run_experiment(config, device=device, keep_model=True).model
    theirs = accelerate_run(config, device).model
    difference = max_weight_difference(lab, theirs)
    return {
        "steps": config.steps,
        "max_relative_difference": difference,
        "tolerance": ACCELERATE_TOLERANCE,
        "equal": difference <= ACCELERATE_TOLERANCE,
    }


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


def print_speed(run: dict[str, Any], other: str, aim: str) -> None:
    print(f"{'optimizer steps/s':<36}{'median':>9}{'min':>9}{'max':>9}")
    for measure, numbers in run["measures"].items():
        for name in ("lab", other):
            values = numbers[f"{name}_steps_per_second"]
            label = f"{name}, {MEASURES[measure]}"
            print(f"{label:<36}{statistics.median(values):>9.1f}{min(values):>9.1f}{max(values):>9.1f}")
        print(
            f"{'  lab / ' + other:<36}{numbers['ratio_of_medians']:>9.3f}   (median of per-round ratios "
            f"{numbers['median_paired_ratio']:.3f}{aim})"
        )
    print(f"warm-up curves agree to {run['warmup_loss_max_abs_difference']:.2e} (max abs loss difference)\n")


def print_report(device: str, run: dict[str, Any], accel: dict[str, Any], mem: list[dict[str, Any]]) -> None:
    c = run["config"]
    print(f"device {device}, torch {torch.__version__}, threads {torch.get_num_threads()}")
    print(
        f"task {c['task']}, size {c.get('size', 'tiny')}, norm {c['norm']}, effective batch "
        f"{c['effective_batch_size']} = {c['accumulation_steps']} x "
        f"{c['effective_batch_size'] // c['accumulation_steps']}, {c['steps']} steps, "
        f"{len(run['measures']['wall']['lab_steps_per_second'])} rounds (interleaved)\n"
    )
    print("Against the bare hand-written loop:")
    print_speed(run, "bare", "; aim >= 0.97")
    print("Against HF Accelerate's accumulate (reported):")
    print_speed(accel, "accelerate", "")
    w = accel["weights"]
    verdict = "equal" if w["equal"] else "NOT EQUAL"
    print(
        f"weights after {w['steps']} steps, lab vs Accelerate: {verdict} (largest difference "
        f"{w['max_relative_difference']:.2e} of the largest weight; tolerance {w['tolerance']:.0e})\n"
    )
    print(f"activation memory at effective batch {c['effective_batch_size']} ({mem[0]['method']}):")
    print(f"{'N':>3}{'micro':>7}{'bytes':>14}{'ratio':>9}{'ideal 1/N':>11}")
    for row in mem:
        print(
            f"{row['accumulation_steps']:>3}{row['micro_batch_size']:>7}{row['peak_activation_bytes']:>14,}"
            f"{row['ratio']:>9.3f}{row['ideal']:>11.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    run, accel = speed(args, device)
    accel["weights"] = same_weights(args, device)
    mem = memory(args, device)
    device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    print_report(device_name, run, accel, mem)
    if args.json:
        payload = {
            "device": device_name,
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "speed": run,
            "accelerate": accel,
            "memory": mem,
        }
        args.json.write_text(json.dumps(payload, indent=2))
        print(f"\nwrote {args.json}")
    return 0 if accel["weights"]["equal"] else 1


if __name__ == "__main__":
    sys.exit(main())
