"""The Celery pool child that trains, made ready when it starts (config/celery.py).

It loads torch and the training code, and trains one step of the smallest model
(labs.training.process), before it takes its first run, so the first run after a worker starts
reaches its first step as fast as later ones; on a GPU worker it initialises CUDA here too. The
worker's main process, which forks the children, never imports torch: a CUDA context does not
survive a fork, and torch's thread pools do not either.
"""

import logging
import os
from typing import Any

from .queue import this_worker

logger = logging.getLogger(__name__)


def pool_child_prepare() -> dict[str, Any]:
    """Find this worker's facts (the runs it takes are checked against them) and load torch.
    One log line says what it found: operators, and the worker tests, read it."""
    from labs.training.process import training_process_prepare

    state = {"pid": os.getpid(), **training_process_prepare(cuda=this_worker()["device_class"] == "cuda")}
    logger.info(
        "pool child %(pid)s ready to train: torch loaded and warmed up in %(seconds).1f s (already loaded by the main "
        "process: %(torch_inherited)s), CUDA initialised here: %(cuda)s (before: %(cuda_inherited)s)",
        state,
    )
    return state
