"""Benchmark the lab's data-parallel training against a bare DDP loop, and what no_sync saves.

Throughput: the lab (run_experiment with processes = G) against a hand-written
DistributedDataParallel loop on the same model, data, windows, rank shares, N,
threads per rank and validation schedule, in the same process setup: G
processes spawned from this one, gloo on the CPU (nccl with one GPU per rank).
Each timing covers a whole run from the parent's side, spawning and tearing
down included, so both pay the same start-up. The two alternate (which goes
first changes each round) because the machine is shared and noisy; the median
over rounds is reported, as samples per second of the effective batch. At the
default sizes start-up (spawning, importing torch, joining the process group)
is much of each timing; raise --steps to weigh the training loop more.

Communication: the lab's own counts of DDP's gradient all-reduces (calls and
bytes, on rank 0) for sync = every_micro against no_sync on the same run (no_sync's
are the last measured lab run's).

Teardown: each rank of the bare loop reports (rank 0 its curve, any rank its
failure) before it leaves, and destroys its process group only after a final
barrier; the parent stops the ranks once the curve is in, as the lab's does, and
a rank that fails or dies stops the benchmark with its reason (BareLoopError).

    .venv/bin/python bench/data_parallel.py [--processes 2] [--rounds 3] [--steps 60] [--json out.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import signal
import socket
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

from labs.training.config import RunConfig
from labs.training.data import load_task_data, sample_windows
from labs.training.data_parallel import stop_processes
from labs.training.loop import loss_sum, make_optimizer, run_experiment, validation_batches
from labs.training.models import build_model
from labs.training.results import RunResult

AIM = 0.95
COLLECTIVE_TIMEOUT_SECONDS = 120  # a rank waiting longer in a collective fails, as in the lab
RUN_TIMEOUT_SECONDS = 1800.0  # the parent's last resort: a hung rank fails its peers' collectives first


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", choices=["digits-mlp", "digits-cnn"], default="digits-mlp")
    parser.add_argument("--norm", default="layer", choices=["none", "layer", "group"])
    parser.add_argument("--processes", type=int, default=2, help="G")
    parser.add_argument("--accumulation", type=int, default=2, help="N per process")
    parser.add_argument("--batch", type=int, default=64, help="effective batch")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, default=None, help="also write the results to this file")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        parser.error("--rounds and --steps must be at least 1")
    return args


def make_config(args: argparse.Namespace, **changes: Any) -> RunConfig:
    values = dict(
        task=args.task,
        norm=args.norm,
        effective_batch_size=args.batch,
        accumulation_steps=args.accumulation,
        processes=args.processes,
        sync="no_sync",
        loss_scaling="mean",
        optimizer="sgd",
        learning_rate=0.05,
        steps=args.steps,
        seed=0,
        grad_clip=None,
    )
    values.update(changes)
    return RunConfig(**values)


# ---------------------------------------------------------------- the bare loop


def bare_rank(rank: int, world: int, port: int, config: RunConfig, messages: Any) -> None:
    """One rank of the bare loop. Rank 0 sends its loss curve before the final barrier, so once any
    rank is past it the curve is in the pipe; the process group is destroyed only after that barrier,
    when no peer trains, validates or waits in a collective any more (gloo can abort, SIGABRT, a
    rank whose peer tears down under it)."""
    try:
        torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))  # as the lab's ranks do
        timeout = timedelta(seconds=COLLECTIVE_TIMEOUT_SECONDS)
        dist.init_process_group(
            "gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world, timeout=timeout
        )
        losses = bare_train(rank, world, config)  # returns with DDP and the model gone
        if rank == 0:
            messages.put(("curve", losses))
            messages.close()
            messages.join_thread()
        dist.barrier()
    except BaseException as exc:  # the reason reaches the parent, then leave as the lab's ranks do:
        with contextlib.suppress(ValueError):  # (rank 0's queue may be closed already)
            messages.put(("error", rank, f"{type(exc).__name__}: {exc}"[:500]))
            messages.close()
            messages.join_thread()
        os._exit(1)  # without destroying the group, which could abort a peer still in a collective
    dist.destroy_process_group()


def bare_train(rank: int, world: int, config: RunConfig) -> list[float]:
    """The textbook DDP accumulation loop on one rank: its contiguous share of each window, N
    micro-batches, no_sync on all but the last, the loss scaled so DDP's average is the window mean."""
    losses: list[float] = []
    torch.manual_seed(config.seed)
    model = build_model(config.task, config.norm).train()
    ddp = DistributedDataParallel(model)
    optimizer = make_optimizer(config, model)
    data = load_task_data(config.task, config.seed)
    windows = sample_windows(data.train_size, config.steps, config.effective_batch_size, config.seed)
    share = config.effective_batch_size // world
    windows = windows[:, rank * share : (rank + 1) * share]
    n, m = config.accumulation_steps, config.micro_batch_size
    scale = world / config.effective_batch_size
    val_batches, _ = validation_batches(data, torch.device("cpu"), torch.float32)
    every = max(1, config.steps // 10)
    for step in range(config.steps):
        optimizer.zero_grad(set_to_none=True)
        total = torch.zeros((), dtype=torch.float64)
        for j in range(n):
            index = windows[step, j * m : (j + 1) * m]
            with ddp.no_sync() if j < n - 1 else contextlib.nullcontext():
                summed = loss_sum(ddp(data.train_x[index]), data.train_y[index])
                (summed * scale).backward()
            total += summed.detach()
        optimizer.step()
        dist.all_reduce(total)  # the window's loss over all ranks, as any logged curve needs
        if rank == 0:
            losses.append(float(total) / config.effective_batch_size)
            if (step + 1) % every == 0 or step + 1 == config.steps:
                validate(model, val_batches)
    return losses


@torch.inference_mode()
def validate(model: torch.nn.Module, batches: list[tuple[torch.Tensor, torch.Tensor]]) -> float:
    model.eval()
    loss = sum(loss_sum(model(x), y).item() for x, y in batches)
    model.train()
    return loss


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class BareLoopError(RuntimeError):
    """A rank of the bare loop failed, died or hung: the benchmark stops with its reason."""


def bare_run(config: RunConfig) -> list[float]:
    """Spawn the ranks, wait for rank 0's curve, then stop them as the lab's parent stops its own
    (labs/training/data_parallel.py: terminate, join, kill), so both timings end at the same point."""
    context = mp.get_context("spawn")
    messages = context.Queue()
    args = (config.processes, free_port(), config, messages)
    ranks = [
        context.Process(target=bare_rank, args=(rank, *args), name=f"bare-ddp-rank-{rank}", daemon=True)
        for rank in range(config.processes)
    ]
    try:
        for process in ranks:
            process.start()
        return wait_for_curve(ranks, messages)
    finally:
        stop_processes(ranks)
        messages.cancel_join_thread()
        messages.close()


def wait_for_curve(ranks: list, messages: Any) -> list[float]:
    deadline = time.monotonic() + RUN_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        try:
            return read(messages.get(timeout=0.2), ranks)
        except queue.Empty:
            pass
        ended = [(rank, p.exitcode) for rank, p in enumerate(ranks) if p.exitcode is not None]
        if ended:  # a rank sends its curve or its reason before it exits: either is in the pipe now
            with contextlib.suppress(queue.Empty):
                return read(messages.get(timeout=0.2), ranks)
            rank, code = next(((r, c) for r, c in ended if c != 0), ended[0])
            raise BareLoopError(
                f"bare DDP loop: rank {rank} of {len(ranks)} ended ({exit_reason(code)}) without a reason"
            )
    raise BareLoopError(f"bare DDP loop: no curve after {RUN_TIMEOUT_SECONDS:.0f} s")


def read(message: tuple, ranks: list) -> list[float]:
    """The curve, or the failure: a peer that died (killed, crashed) is named before the rank that
    only lost it in a collective, which its peers notice a moment later."""
    if message[0] == "curve":
        return message[1]
    reason = f"rank {message[1]} of {len(ranks)} failed: {message[2]}"
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        for rank, process in enumerate(ranks):
            if process.exitcode not in (None, 0, 1, -signal.SIGABRT):  # 1: a rank that reported
                raise BareLoopError(f"bare DDP loop: rank {rank} ended ({exit_reason(process.exitcode)}); {reason}")
        time.sleep(0.05)
    raise BareLoopError(f"bare DDP loop: {reason}")


def exit_reason(code: int) -> str:
    return f"signal {signal.Signals(-code).name}" if code < 0 else f"exit code {code}"


def lab_run(config: RunConfig) -> RunResult:
    return run_experiment(config)


# ---------------------------------------------------------------- measuring


def timed(fn: Any, config: RunConfig) -> tuple[float, Any]:
    """Samples per second of the effective batch over one whole run, and what the run returned."""
    started = time.perf_counter()
    found = fn(config)
    return config.steps * config.effective_batch_size / (time.perf_counter() - started), found


def throughput(args: argparse.Namespace) -> tuple[dict[str, Any], RunResult]:
    """The speeds, and the last measured lab run (sync no_sync), whose all-reduce counts are reused."""
    config = make_config(args)
    warm = config.replace(steps=min(5, config.steps))
    lab_losses = [point["loss"] for point in lab_run(warm).curve]
    bare_losses = bare_run(warm)  # the warm-up also loads data and warms caches
    max_diff = max(abs(a - b) for a, b in zip(lab_losses, bare_losses, strict=True))
    rates: dict[str, list[float]] = {"lab": [], "bare": []}
    lab_result = None
    for round_index in range(args.rounds):
        order = [("lab", lab_run), ("bare", bare_run)]
        if round_index % 2:
            order.reverse()  # neither always runs first
        for name, fn in order:
            rate, found = timed(fn, config)
            rates[name].append(rate)
            lab_result = found if name == "lab" else lab_result
    speed = {
        "config": config.to_dict(),
        "warmup_loss_max_abs_difference": max_diff,
        "lab_samples_per_second": rates["lab"],
        "bare_samples_per_second": rates["bare"],
        "ratio_of_medians": statistics.median(rates["lab"]) / statistics.median(rates["bare"]),
        "median_paired_ratio": statistics.median(a / b for a, b in zip(rates["lab"], rates["bare"], strict=True)),
    }
    return speed, lab_result


def communication(args: argparse.Namespace, no_sync: RunResult) -> dict[str, Any]:
    """every_micro against no_sync on the same run; no_sync's is a measured lab run (same config)."""
    rows = {
        "every_micro": comm_row(run_experiment(make_config(args, sync="every_micro"))),
        "no_sync": comm_row(no_sync),
    }
    every, once = rows["every_micro"], rows["no_sync"]
    rows["calls_ratio"] = every["allreduce_calls"] / once["allreduce_calls"]
    rows["bytes_ratio"] = every["allreduce_bytes"] / once["allreduce_bytes"]
    return rows


def comm_row(result: RunResult) -> dict[str, Any]:
    return {
        "allreduce_calls": result.allreduce_calls,
        "allreduce_bytes": result.allreduce_bytes,
        "communication_seconds": result.communication_seconds,
        "compute_seconds": result.compute_seconds,
        "grad_equivalence_error": result.grad_equivalence_error,
    }


def print_report(speed: dict[str, Any], comm: dict[str, Any]) -> None:
    c = speed["config"]
    g, n = c["processes"], c["accumulation_steps"]
    threads = max(1, (os.cpu_count() or 1) // g)
    print(f"torch {torch.__version__}, gloo on cpu, {os.cpu_count()} cores, {threads} thread(s) a rank")
    print(
        f"task {c['task']}, norm {c['norm']}, effective batch {c['effective_batch_size']} = {g} processes x {n} x "
        f"{c['effective_batch_size'] // (g * n)}, {c['steps']} steps, {len(speed['lab_samples_per_second'])} rounds "
        "(interleaved, spawn to teardown)\n"
    )
    print(f"{'samples/s':<14}{'median':>9}{'min':>9}{'max':>9}")
    for name in ("lab", "bare"):
        values = speed[f"{name}_samples_per_second"]
        print(f"{name:<14}{statistics.median(values):>9.1f}{min(values):>9.1f}{max(values):>9.1f}")
    print(
        f"{'  lab / bare':<14}{speed['ratio_of_medians']:>9.3f}   (median of per-round ratios "
        f"{speed['median_paired_ratio']:.3f}; aim >= {AIM})"
    )
    print(f"\nwarm-up curves agree to {speed['warmup_loss_max_abs_difference']:.2e} (max abs loss difference)\n")
    print(f"gradient all-reduces over {c['steps']} steps (rank 0):")
    print(f"{'sync':<14}{'calls':>8}{'bytes':>14}{'comm s':>9}{'compute s':>11}{'grad error':>12}")
    for sync in ("every_micro", "no_sync"):
        row = comm[sync]
        print(
            f"{sync:<14}{row['allreduce_calls']:>8}{row['allreduce_bytes']:>14,}{row['communication_seconds']:>9.3f}"
            f"{row['compute_seconds']:>11.3f}{row['grad_equivalence_error']:>12.2e}"
        )
    print(f"{'  saved':<14}{comm['calls_ratio']:>7.1f}x{comm['bytes_ratio']:>13.1f}x   (expected N = {n})")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    speed, no_sync = throughput(args)
    comm = communication(args, no_sync)
    print_report(speed, comm)
    if args.json:
        threads = max(1, (os.cpu_count() or 1) // args.processes)
        found = {"torch": torch.__version__, "threads_per_rank": threads, "speed": speed, "communication": comm}
        args.json.write_text(json.dumps(found, indent=2))
        print(f"\nwrote {args.json}")


if __name__ == "__main__":
    main()
