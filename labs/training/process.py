"""A training process made ready before its first run (plain PyTorch, no Django).

The worker's pool child calls this when it starts (labs.pool_child), so the first run after a
worker starts pays neither torch's import nor CUDA's start-up, and CUDA starts in the process that
trains, never in one that forks it.
"""

import sys
import time
from typing import Any


def training_process_prepare(*, cuda: bool) -> dict[str, Any]:
    """Import torch and the training code; with `cuda` (a GPU worker), initialise CUDA when torch
    finds a GPU. Returns what it found, and whether torch came already loaded (from a parent)."""
    inherited = "torch" in sys.modules
    started = time.monotonic()
    import torch

    from labs.training import loop  # noqa: F401  the models, data and loop every run uses

    cuda_before = torch.cuda.is_initialized()
    if cuda and torch.cuda.is_available():
        torch.cuda.init()
    return {
        "torch_inherited": inherited,
        "cuda_inherited": cuda_before,
        "cuda": torch.cuda.is_initialized(),
        "seconds": time.monotonic() - started,
    }
