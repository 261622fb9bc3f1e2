"""Running the training loop in G processes ("ranks"), and counting what DistributedDataParallel sends.

The training is loop.train, whose one loop has the data-parallel parts (shares, DDP, no_sync). This
module starts the ranks (start method "spawn", through billiard, Celery's fork of multiprocessing) on
a free local port, each in its process group (gloo on the CPU, nccl with one GPU per rank), relays
rank 0's progress and the caller's cancellation, and always tears them down. A rank that raises,
exits or hangs fails the run with a DataParallelError that says which; a rank whose parent is gone
stops by itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import queue
import signal
import socket
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import billiard
import torch
import torch.distributed as dist
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

DEFAULT_TIMEOUT_SECONDS = 120.0  # a collective (or the parent) waiting longer than this fails the run
_POLL_SECONDS = 0.2
_ABORTED = -signal.SIGABRT  # how gloo ends a rank whose peer left in a collective: a consequence


class DataParallelError(RuntimeError):
    """A data-parallel run failed: a process raised, died or stopped answering."""


@dataclasses.dataclass
class CommStats:
    """What DDP's gradient all-reduces did on this rank."""

    calls: int = 0
    bytes: int = 0
    seconds: float = 0.0  # from each launch to its completion; may overlap the backward pass


def counting_allreduce_hook(stats, bucket):
    """DDP's default all-reduce, counted: one call per gradient bucket DDP sends.
    (No annotations: DDP checks them, and this module's are strings.)"""
    started = time.perf_counter()
    buffer = bucket.buffer()
    stats.calls += 1
    stats.bytes += buffer.numel() * buffer.element_size()

    def finished(future: torch.futures.Future[torch.Tensor]) -> torch.Tensor:
        stats.seconds += time.perf_counter() - started
        return future.value()

    return default_hooks.allreduce_hook(None, bucket).then(finished)


def run_ranks(
    train: Callable, config: Any, options: dict, device, on_progress, should_stop, timeout_seconds: float
) -> tuple[dict[str, Any], dict[str, torch.Tensor] | None]:
    """``train(config, device, rank=r, on_progress=..., should_stop=..., **options)`` in each of
    config.processes ranks (``train`` importable by name: the ranks are spawned). Returns rank 0's
    RunResult as a dict, and its model's state (None unless it kept the model)."""
    world = config.processes
    device_type, backend = _backend(device, world)
    # billiard, not multiprocessing: Celery's pool processes are daemonic, and the standard library
    # refuses to start children from a daemonic process (billiard allows it). Ours are torn down in a
    # finally, and each rank stops by itself when its parent is gone (_stop_check).
    context = billiard.get_context("spawn")
    messages, stop = context.Queue(), context.Event()
    args = (world, _free_port(), backend, device_type, os.getpid(), timeout_seconds, messages, stop)
    processes: list = []
    try:
        for rank in range(world):
            process = context.Process(
                target=_rank_main,
                args=(rank, *args, train, config, options),
                name=f"lab-ddp-rank-{rank}",
                daemon=True,  # never outlives the worker
            )
            processes.append(process)
            process.start()
        return _supervise(processes, messages, stop, on_progress, should_stop, timeout_seconds)
    finally:
        stop_processes(processes)
        messages.cancel_join_thread()
        messages.close()


def stop_processes(processes: list) -> None:
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        if process.pid is None:
            continue  # never started
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join()


# ---------------------------------------------------------------- parent side


def _backend(device: str | torch.device | None, world: int) -> tuple[str, str]:
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    wanted = torch.device(device).type if device is not None else ("cuda" if gpus >= world else "cpu")
    if wanted != "cuda":
        return "cpu", "gloo"
    if gpus < world:
        raise ValueError(f"{world} processes need {world} GPUs (one each); this machine has {gpus}.")
    return "cuda", "nccl"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _supervise(processes, messages, stop, on_progress, should_stop, timeout) -> tuple[dict, dict | None]:
    heard = time.monotonic()
    while True:
        if should_stop is not None and not stop.is_set() and should_stop():
            stop.set()  # rank 0 reads it before the next window and tells the others
        try:
            message = messages.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            codes = [process.exitcode for process in processes]
            if any(code not in (None, 0) for code in codes) or all(code == 0 for code in codes):
                raise _failure(processes, messages) from None
            if time.monotonic() - heard > timeout:
                raise DataParallelError(
                    f"No process of {len(processes)} reported progress for {timeout:.0f} s: one of them is stuck."
                ) from None
            continue
        heard = time.monotonic()
        if message[0] == "progress" and on_progress is not None:
            on_progress(*message[1:])
        elif message[0] == "error":
            raise _failure(processes, messages, message)
        elif message[0] == "result":
            state = torch.load(io.BytesIO(message[2]), weights_only=True) if message[2] is not None else None
            return message[1], state


def _failure(processes: list, messages, reported: tuple | None = None) -> DataParallelError:
    """Why the run failed, the cause before its consequences: a rank that ended on its own (an exit
    code other than ours, 1, and gloo's abort; its peers' collectives fail a moment later, so it is
    waited for a second), then the first reason a rank sent, then any rank that ended early."""
    world, deadline = len(processes), time.monotonic() + 1.0
    while time.monotonic() < deadline:
        for rank, process in enumerate(processes):
            if process.exitcode not in (None, 0, 1, _ABORTED):
                return _ended_early(rank, world, process)
        time.sleep(0.05)
    with contextlib.suppress(queue.Empty):  # a rank flushes its reason before it exits: it is in the pipe
        while reported is None:
            message = messages.get_nowait()
            reported = message if message[0] == "error" else None
    if reported is not None:
        return DataParallelError(f"Process {reported[1]} of {world} failed: {reported[2]}")
    for rank, process in sorted(enumerate(processes), key=lambda pair: pair[1].exitcode == _ABORTED):
        if process.exitcode not in (None, 0):
            return _ended_early(rank, world, process)
    return DataParallelError(f"All {world} processes ended without reporting a result.")


def _ended_early(rank: int, world: int, process) -> DataParallelError:
    return DataParallelError(
        f"Process {rank} of {world} ended with exit code {process.exitcode} before the run finished."
    )


# ---------------------------------------------------------------- rank side


def _rank_main(
    rank, world, port, backend, device_type, parent, timeout, messages, stop, train, config, options
) -> None:
    try:
        if device_type == "cpu":  # G processes share the cores; more threads each only contend
            torch.set_num_threads(max(1, (os.cpu_count() or 1) // world))
        dist.init_process_group(
            backend,
            init_method=f"tcp://127.0.0.1:{port}",
            rank=rank,
            world_size=world,
            timeout=timedelta(seconds=timeout),
        )
        device = torch.device("cuda", rank) if device_type == "cuda" else torch.device("cpu")
        if device.type == "cuda":
            torch.cuda.set_device(device)
        report = (lambda *progress: messages.put(("progress", *progress))) if rank == 0 else None
        should_stop = _stop_check(rank, parent, stop)
        result = train(config, device, rank=rank, on_progress=report, should_stop=should_stop, **options)
        if rank == 0:
            messages.put(("result", result.to_dict(), _state_bytes(result.model)))
            messages.close()
            messages.join_thread()  # in the pipe before any rank passes the barrier below
        dist.barrier()  # no rank destroys its process group while a peer still validates or reports
    except BaseException as exc:  # every failure must reach the parent as a reason
        with contextlib.suppress(ValueError):  # rank 0's queue is closed once its result is sent
            messages.put(("error", rank, f"{type(exc).__name__}: {exc}"[:500]))
            messages.close()
            messages.join_thread()  # in the pipe before our peers see us go and report their own errors
        # Leave without tearing down the process group: destroying it while a peer waits in a
        # collective can abort that peer (SIGABRT) before it reports; a closed socket it reports.
        os._exit(1)
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()


def _stop_check(rank: int, parent: int, stop) -> Callable[[], bool]:
    """The rank's should_stop, called before each window: rank 0 reads the parent's stop flag (the loop
    tells the others); every rank leaves when the process that started the run is gone."""

    def should_stop() -> bool:
        if os.getppid() != parent:  # the worker died: nobody reads our results
            raise RuntimeError("the process that started this run is gone")
        return rank == 0 and stop.is_set()

    return should_stop


def _state_bytes(model: torch.nn.Module | None) -> bytes | None:
    if model is None:
        return None
    buffer = io.BytesIO()
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, buffer)
    return buffer.getvalue()
