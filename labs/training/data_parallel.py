"""Data-parallel training: the lab's loop under DistributedDataParallel in G processes.

Each window of the effective batch B is split into G contiguous shares, one per
process ("rank"); each rank accumulates N micro-batches of B / (G × N) samples,
so the samples are those of a one-process run with G × N micro-batches.

DDP averages gradients over the ranks, so every rank backpropagates G times its
single-process loss: the all-reduced gradient is then the single-process one.
"mean" divides by the whole window's token count, summed over the ranks with an
all-reduce before the window; "mean_of_rank_means" divides by the rank's own
count instead (the classic mistake: ranks with fewer tokens weigh more).

``sync``: "no_sync" skips the gradient all-reduce on all but the last
micro-batch of a window (model.no_sync()); "every_micro" all-reduces after each.
A DDP communication hook wraps the default all-reduce and counts what DDP does.

Processes are spawned (start method "spawn") on a free local port; the parent
relays progress and cancellation, and always tears them down. A rank that
raises, exits or hangs fails the run with a DataParallelError that says which.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import io
import multiprocessing.process
import os
import queue
import signal
import socket
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel

from .communication import CommStats, counting_allreduce_hook
from .config import PER_RANK_SCALING, RunConfig
from .data import load_task_data
from .loop import Feed, ProgressCallback, _Run, loss_sum
from .metrics import ActivationMeter, relative_grad_difference
from .models import build_model
from .precision import matmul_precision
from .results import RunResult
from .sizes import SIZES

DEFAULT_TIMEOUT_SECONDS = 120.0  # a collective (or the parent) waiting longer than this fails the run
_POLL_SECONDS = 0.2
_FAULTS = ("raise", "exit", "hang")
_ABORTED = -signal.SIGABRT  # how gloo ends a rank whose peer left in a collective: a consequence


class DataParallelError(RuntimeError):
    """A data-parallel run failed: a process raised, died or stopped answering."""


def run_data_parallel(
    config: RunConfig,
    *,
    device: str | torch.device | None = None,
    dtype: torch.dtype = torch.float32,
    on_progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    keep_model: bool = False,
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS,
    fault: tuple[int, int, str] | None = None,
) -> RunResult:
    """Train ``config`` in ``config.processes`` processes; the same contract as run_experiment.

    ``fault`` is for tests only: (rank, step, "raise" | "exit" | "hang") makes that rank
    fail, or block forever, when it reaches that (0-based) step.
    """
    if fault is not None and fault[2] not in _FAULTS:
        raise ValueError(f"fault must be one of {_FAULTS}")
    world = config.processes
    device_type, backend = _backend(device, world)
    context = mp.get_context("spawn")
    messages = context.Queue()
    stop = context.Event()
    args = (world, _free_port(), backend, config, device_type, str(dtype).removeprefix("torch."), os.getpid())
    processes: list = []
    try:
        with _may_have_children():  # a Process copies this process's settings when it is made
            for rank in range(world):
                process = context.Process(
                    target=_rank_main,
                    args=(rank, *args, timeout_seconds, keep_model, messages, stop, fault),
                    name=f"lab-ddp-rank-{rank}",
                    daemon=True,  # never outlives the worker
                )
                processes.append(process)
                process.start()
        return _supervise(processes, messages, stop, on_progress, should_stop, timeout_seconds, config, dtype)
    finally:
        stop_processes(processes)
        messages.cancel_join_thread()
        messages.close()


# ---------------------------------------------------------------- parent side


def _backend(device: str | torch.device | None, world: int) -> tuple[str, str]:
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    wanted = torch.device(device).type if device is not None else ("cuda" if gpus >= world else "cpu")
    if wanted == "cuda":
        if gpus < world:
            raise ValueError(f"{world} processes need {world} GPUs (one each); this machine has {gpus}.")
        return "cuda", "nccl"
    return "cpu", "gloo"


@contextlib.contextmanager
def _may_have_children():
    """Celery's pool runs tasks in daemonic processes, which multiprocessing forbids to start
    children (so they cannot outlive a killed daemon), and leaves its own authkey type, which the
    spawn pickler refuses. Ours are torn down in a finally, and each
    rank stops by itself when its parent is gone (_RankRun.agree_to_stop), so lift the flag."""
    config = multiprocessing.process.current_process()._config
    saved = dict(config)
    config["daemon"] = False
    config["authkey"] = multiprocessing.process.AuthenticationString(bytes(config["authkey"]))
    try:
        yield
    finally:
        config.clear()
        config.update(saved)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _supervise(processes, messages, stop, on_progress, should_stop, timeout, config, dtype) -> RunResult:
    world, heard = len(processes), time.monotonic()
    while True:
        if should_stop is not None and not stop.is_set() and should_stop():
            stop.set()  # rank 0 reads it before the next window and tells the others
        try:
            message = messages.get(timeout=_POLL_SECONDS)
        except queue.Empty:
            _check_alive(processes, world, messages)
            if time.monotonic() - heard > timeout:
                raise DataParallelError(
                    f"No process of {world} reported progress for {timeout:.0f} s: one of them is stuck."
                ) from None
            continue
        heard = time.monotonic()
        kind = message[0]
        if kind == "progress" and on_progress is not None:
            on_progress(*message[1:])
        elif kind == "error":
            _raise_reported(message, processes, world)
        elif kind == "result":
            return _rebuild(message[1], message[2], config, dtype)


def _raise_reported(message: tuple, processes: list, world: int) -> None:
    _check_died(processes, world)  # a peer that died is the cause; this rank only lost it
    raise DataParallelError(f"Process {message[1]} of {world} failed: {message[2]}")


def _check_alive(processes: list, world: int, messages) -> None:
    ranks = sorted(enumerate(processes), key=lambda pair: pair[1].exitcode == _ABORTED)  # a cause first
    for rank, process in ranks:
        code = process.exitcode
        if code is not None and code != 0:
            # A rank that reports flushes its reason before it exits, so a reason it sent is in the
            # pipe by now, even if the poll just before missed it: the reason beats the exit code.
            while True:
                try:
                    message = messages.get_nowait()
                except queue.Empty:
                    break
                if message[0] == "error":
                    _raise_reported(message, processes, world)
            raise DataParallelError(f"Process {rank} of {world} ended with exit code {code} before the run finished.")
    if all(process.exitcode == 0 for process in processes):
        raise DataParallelError(f"All {world} processes ended without reporting a result.")


def _check_died(processes: list, world: int) -> None:
    """Raises for a process that ended without reporting (exit codes other than ours, 1, and gloo's
    abort), after a short wait: when a rank dies, its peers' collectives fail a moment later."""
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline:
        for rank, process in enumerate(processes):
            if process.exitcode not in (None, 0, 1, _ABORTED):
                raise DataParallelError(
                    f"Process {rank} of {world} ended with exit code {process.exitcode} before the run finished."
                )
        time.sleep(0.05)


def _rebuild(values: dict[str, Any], model_bytes: bytes | None, config: RunConfig, dtype: torch.dtype) -> RunResult:
    model = None
    if model_bytes is not None:
        model = build_model(config.task, config.norm, config.size).to(dtype=dtype)
        model.load_state_dict(torch.load(io.BytesIO(model_bytes), weights_only=True))
    return RunResult(**values, model=model)


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


# ---------------------------------------------------------------- rank side


def _rank_main(
    rank, world, port, backend, config, device_type, dtype_name, parent, timeout, keep_model, messages, stop, fault
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
        dtype = getattr(torch, dtype_name)
        torch.manual_seed(config.seed)  # the same initialization on every rank (DDP also broadcasts rank 0's)
        model = build_model(config.task, config.norm, config.size).to(device=device, dtype=dtype).train()
        data = load_task_data(config.task, config.seed, context=SIZES[config.size].context)
        run = _RankRun(config, model, data, device, dtype, rank, parent, stop, fault)
        report = (lambda *progress: messages.put(("progress", *progress))) if rank == 0 else None
        with matmul_precision(config.precision):  # fp32: TF32 off (precision.py)
            result = run.train(report, run.agree_to_stop, keep_model=False)
        if rank == 0:
            messages.put(("result", result.to_dict(), _model_bytes(model) if keep_model else None))
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


def _model_bytes(model: torch.nn.Module) -> bytes:
    buffer = io.BytesIO()
    torch.save({k: v.cpu() for k, v in model.state_dict().items()}, buffer)
    return buffer.getvalue()


class _RankRun(_Run):
    """One rank's share of the run: the single-process loop with DDP around the model."""

    def __init__(self, config, model, data, device, dtype, rank, parent, stop, fault) -> None:
        super().__init__(config, model, data, device, dtype, rank)
        self.rank, self.world, self.stop, self.fault = rank, config.processes, stop, fault
        self.parent = parent
        self.ddp = DistributedDataParallel(model, device_ids=[device.index] if device.type == "cuda" else None)
        self.comm = CommStats()
        self.ddp.register_comm_hook(self.comm, counting_allreduce_hook)
        self.local_count: list[int] = [sum(c) for c in self.feed.micro_count]
        self.step = 0
        self.window_seconds = 0.0

    def agree_to_stop(self) -> bool:
        """Before each window, one small all-reduce: rank 0's stop flag and the window's token count."""
        step, self.step = self.step, self.step + 1
        if os.getppid() != self.parent:  # the worker died: nobody reads our results
            raise RuntimeError("the process that started this run is gone")
        if self.fault is not None and self.fault[:2] == (self.rank, step):
            if self.fault[2] == "exit":
                os._exit(3)
            if self.fault[2] == "hang":
                threading.Event().wait()  # never set: its peers wait in the next collective
            raise RuntimeError(f"fault injected at step {step}")
        flag = 1.0 if self.rank == 0 and self.stop.is_set() else 0.0
        shared = torch.tensor([flag, float(self.local_count[step])], dtype=torch.float64, device=self.device)
        dist.all_reduce(shared)
        stop, count = shared.tolist()
        self.feed.window_count[step] = int(count)  # the whole window's, as in one process
        return stop > 0

    def _scales(self, step: int) -> list[float]:
        """What each micro-batch's summed loss is multiplied by: G / (its single-process divisor)."""
        counts, n, g = self.feed.micro_count[step], self.feed.n, self.world
        scaling = self.config.loss_scaling
        if scaling == "mean":
            divisors = [self.feed.window_count[step]] * n
        elif scaling == PER_RANK_SCALING:
            divisors = [self.local_count[step] * g] * n
        elif scaling == "sum":
            divisors = counts
        else:  # mean_of_micro_means over all G × N micro-batches
            divisors = [count * n * g for count in counts]
        return [g / divisor for divisor in divisors]

    def _accumulate(self, step: int, meter: ActivationMeter | None = None) -> torch.Tensor:
        """Forward and backward of this rank's micro-batches; the window's mean loss over all ranks.
        With a meter, each micro-batch's activation memory is measured (window 0)."""
        started = time.perf_counter()
        self.optimizer.zero_grad(set_to_none=True)
        if meter is not None and self.device.type == "cuda":
            for p in self.params:  # as in one process: gradients allocated outside the measurement
                p.grad = torch.zeros_like(p)
        if meter is None:
            xs, ys = self.feed.split(step)
        else:  # own tensors: a view would count the whole window
            xs, ys = zip(*(self.feed.micro(step, j)[:2] for j in range(self.feed.n)), strict=True)
        total = torch.zeros((), dtype=torch.float64, device=self.device)
        last = len(xs) - 1
        for j, (x, y, scale) in enumerate(zip(xs, ys, self._scales(step), strict=True)):
            skip = self.config.sync == "no_sync" and j < last
            with self.ddp.no_sync() if skip else contextlib.nullcontext():
                with meter.track() if meter is not None else contextlib.nullcontext():
                    summed = loss_sum(self.ddp(x), y)
                    (summed * scale).backward()
            total += summed.detach()
        dist.all_reduce(total)
        self.window_seconds += time.perf_counter() - started
        return (total / self.feed.window_count[step]).to(self.dtype)

    def _window(self, step: int) -> tuple[torch.Tensor, torch.Tensor]:
        loss = self._accumulate(step)
        return loss, self._timed_step()

    def _first_window(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Window 0, measured on rank 0: the all-reduced gradient against one process's full-batch one."""
        reference = None
        if self.rank == 0:
            started = time.perf_counter()
            reference = self._full_window_gradients()
            self.metrics_seconds += time.perf_counter() - started
        self.meter = ActivationMeter(self.model, self.device)
        loss = self._accumulate(0, self.meter)
        self._agree_on_peak()
        if reference is not None:
            self.grad_error = relative_grad_difference((p.grad for p in self.params), reference)
        return loss, self._timed_step()

    def _agree_on_peak(self) -> None:
        """The run's peak activation memory is the largest of any rank's (shares can differ in
        sequence length): what one process of the run needs."""
        peak = torch.tensor([self.meter.peak], dtype=torch.float64, device=self.device)
        dist.all_reduce(peak, op=dist.ReduceOp.MAX)
        self.meter.peak = int(peak.item())

    def _timed_step(self) -> torch.Tensor:
        started = time.perf_counter()
        norm = self._clip_and_step()
        self.window_seconds += time.perf_counter() - started
        return norm

    def _full_window_gradients(self) -> list[torch.Tensor | None]:
        """The correct window-0 gradient in one process: every rank's samples on a copy of the model."""
        twin = copy.deepcopy(self.model)
        shares = [Feed(self.data, self.config, self.device, self.dtype, r).window(0) for r in range(self.world)]
        total = sum(count for _, _, count in shares)
        for x, y, _ in shares:  # the same gradient as one batch: the sum of its parts
            (loss_sum(twin(x), y) / total).backward()
        return [p.grad for p in twin.parameters()]

    def _validation_point(self, step: int) -> dict[str, Any]:
        if self.rank != 0:  # only rank 0's result is reported
            return {"step": step, "loss": None, "accuracy": None}
        return super()._validation_point(step)

    def _result(self, *args: Any) -> RunResult:
        result = super()._result(*args)
        return dataclasses.replace(
            result,
            allreduce_calls=self.comm.calls,
            allreduce_bytes=self.comm.bytes,
            communication_seconds=self.comm.seconds,
            compute_seconds=max(0.0, self.window_seconds - self.comm.seconds),
        )
