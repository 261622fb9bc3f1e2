"""Counting what DistributedDataParallel communicates: a comm hook around its default all-reduce."""

from __future__ import annotations

import dataclasses
import time

import torch
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks


@dataclasses.dataclass
class CommStats:
    """What DDP's gradient all-reduces did on this rank."""

    calls: int = 0
    bytes: int = 0
    seconds: float = 0.0  # from each launch to its completion; may overlap the backward pass


def counting_allreduce_hook(stats: CommStats, bucket):
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
