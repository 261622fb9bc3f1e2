"""A training process made ready before its first run (plain PyTorch, no Django).

The worker's pool child calls this when it starts (labs.workers.pool_child_prepare), so the first run after a
worker starts pays neither torch's import nor CUDA's start-up, and CUDA starts in the process that
trains, never in one that forks it.
"""

import sys
import time
from typing import Any

# One optimizer step of the smallest model: it loads what a first run would otherwise load itself,
# seconds each on a busy CPU: scikit-learn (the digits data, kept per process), torch._dynamo (which
# the first optimizer built imports), the thread pools and the kernels' first calls.
WARM_UP = {
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 8,
    "accumulation_steps": 2,
    "loss_scaling": "mean",
    "optimizer": "adamw",
    "learning_rate": 0.001,
    "steps": 1,
    "seed": 0,
}


def training_process_prepare(*, cuda: bool) -> dict[str, Any]:
    """Import torch and the training code and train WARM_UP once; with `cuda` (a GPU worker),
    on the GPU when torch finds one, which initialises CUDA here. Returns what it found, and
    whether torch came already loaded (from a parent)."""
    inherited = "torch" in sys.modules
    started = time.monotonic()
    import torch

    from labs.training.config import RunConfig
    from labs.training.loop import run_experiment

    cuda_before = torch.cuda.is_initialized()
    device = "cuda" if cuda and torch.cuda.is_available() else "cpu"
    run_experiment(RunConfig(**WARM_UP), device=device)
    return {
        "torch_inherited": inherited,
        "cuda_inherited": cuda_before,
        "cuda": torch.cuda.is_initialized(),
        "seconds": time.monotonic() - started,
    }
