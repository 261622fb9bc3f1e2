"""Cheap measurements the labs report: activation memory and gradient equivalence.

Both are taken on the first optimizer step only, so the loop stays fast.
"""

from __future__ import annotations

import contextlib
import math
import weakref
from collections.abc import Iterable, Iterator

import torch
from torch import nn


class ActivationMeter:
    """Peak activation memory of micro-batches: parameters, buffers (BatchNorm
    running statistics), gradients and optimizer state excluded.

    On CUDA: the allocator's peak during forward + backward minus what was
    allocated just before the forward (callers must make gradients exist
    beforehand, or their first allocation would be counted).

    Elsewhere: bytes of the distinct storages autograd saves for backward that are
    not parameter or buffer storages, tracked live with saved-tensor hooks; a storage seen
    through several views counts once, and it leaves the total when the last
    saved reference to it is released (during backward).
    """

    def __init__(self, model: nn.Module, device: torch.device) -> None:
        self.device = device
        self.cuda = device.type == "cuda"
        self.method = "cuda-allocator" if self.cuda else "saved-tensors"
        self.peak = 0
        state = [*model.parameters(), *model.buffers()]
        self._params = {t.untyped_storage().data_ptr() for t in state}
        self._live: dict[int, list[int]] = {}  # storage pointer -> [bytes, references]
        self._current = 0

    @contextlib.contextmanager
    def track(self) -> Iterator[None]:
        """Wrap the forward and backward of one micro-batch."""
        if self.cuda:
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            before = torch.cuda.memory_allocated(self.device)
            yield
            torch.cuda.synchronize(self.device)
            self.peak = max(self.peak, torch.cuda.max_memory_allocated(self.device) - before)
        else:
            with torch.autograd.graph.saved_tensors_hooks(self._pack, lambda tensor: tensor):
                yield

    def _pack(self, tensor: torch.Tensor) -> torch.Tensor:
        storage = tensor.untyped_storage()
        key = storage.data_ptr()
        if key in self._params:
            return tensor
        entry = self._live.get(key)
        if entry is None:
            self._live[key] = [storage.nbytes(), 1]
            self._current += storage.nbytes()
            self.peak = max(self.peak, self._current)
        else:
            entry[1] += 1
        # Autograd holds the returned object until backward releases it.
        weakref.finalize(tensor, self._release, key)
        return tensor

    def _release(self, key: int) -> None:
        entry = self._live.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] == 0:
            self._current -= entry[0]
            del self._live[key]


def relative_grad_difference(
    accumulated: Iterable[torch.Tensor | None], reference: Iterable[torch.Tensor | None]
) -> float:
    """||g_acc - g_full|| / ||g_full|| over all parameters (missing gradients are zero)."""
    diff_sq = torch.zeros((), dtype=torch.float64)
    ref_sq = torch.zeros((), dtype=torch.float64)
    for acc, ref in zip(accumulated, reference, strict=True):
        if ref is None and acc is None:
            continue
        ref64 = ref.detach().double().cpu() if ref is not None else torch.zeros(())
        acc64 = acc.detach().double().cpu() if acc is not None else torch.zeros(())
        diff_sq += (acc64 - ref64).pow(2).sum()
        ref_sq += ref64.pow(2).sum()
    diff, ref_norm = math.sqrt(diff_sq.item()), math.sqrt(ref_sq.item())
    if ref_norm == 0.0:
        return 0.0 if diff == 0.0 else math.inf
    return diff / ref_norm
