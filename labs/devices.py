"""What the labs' workers are, which queue a run goes to, and which settings the connected
workers can run now.

Celery queues: every worker consumes `gpu` (runs any CPU can train: the one-machine default keeps
working on a CPU alone, and a small run goes to whichever worker is free); only CUDA workers consume
`cuda` (tiny runs that need a GPU: tf32, or more steps or samples than a CPU may train), and one
queue per GPU size, `cuda.small` and `cuda.medium`, is consumed only by the CUDA workers whose memory
holds that size. A worker picks its queues itself at start (config/celery.py), so its command line
is the same everywhere; and it checks each run again when it takes it (labs.routing).

Nothing here imports torch: a worker finds its device with nvidia-smi (its parent process must not
initialise CUDA before it forks), and the web process reads what workers published.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from labs.training import config as lab_config
from labs.training.problems import Problem, gettext_noop
from labs.training.sizes import GPU_ONLY_PRECISIONS, SIZES

CPU_QUEUE = "gpu"  # its historical name: every worker consumes it, CPU or GPU
CUDA_QUEUE = "cuda"

SIZE_TOO_BIG = gettext_noop(
    "size %(size)s needs more GPU memory than any connected worker has; the largest size they take is %(largest)s."
)


# ---------------------------------------------------------------- what a run needs, where it goes


def needs_cuda(config: Mapping[str, Any]) -> bool:
    """A run's stored settings (RunConfig.to_dict: defaults left out) need a CUDA worker: a GPU
    size or precision, or more steps, batch or samples than a CPU run may have."""
    size, precision = config.get("size", "tiny"), config.get("precision", "fp32")
    if (size in SIZES and SIZES[size].needs_gpu) or precision in GPU_ONLY_PRECISIONS:
        return True
    cpu = lab_config.DEVICE_LIMITS["cpu"]
    steps, batch = config.get("steps", 0), config.get("effective_batch_size", 0)
    return steps > cpu.steps or batch > cpu.effective_batch_size or steps * batch > cpu.sample_budget


def queue_for(config: Mapping[str, Any]) -> str:
    if not needs_cuda(config):
        return CPU_QUEUE
    size = config.get("size", "tiny")
    return size_queue(size) if size in SIZES and SIZES[size].needs_gpu else CUDA_QUEUE


def size_queue(size: str) -> str:
    """The queue of a GPU size's runs: only workers whose memory holds the size consume it."""
    return f"{CUDA_QUEUE}.{size}"


def queues_for(device_class: str, sizes: Iterable[str]) -> list[str]:
    """The queues a worker consumes: `gpu` everywhere; on a GPU, `cuda` and its sizes' queues."""
    if device_class != "cuda":
        return [CPU_QUEUE]
    return [CPU_QUEUE, CUDA_QUEUE, *(size_queue(name) for name in sizes if SIZES[name].needs_gpu)]


def can_hold(config: Mapping[str, Any], *, device_class: str, sizes: Iterable[str]) -> bool:
    """A worker (its device class and the sizes it takes) can train a run's stored settings."""
    if needs_cuda(config) and device_class != "cuda":
        return False
    return config.get("size", "tiny") in sizes


def time_limits(queue_name: str) -> dict[str, int]:
    """Celery's per-message time limits: a `cuda` run may take longer (its limits allow more)."""
    if queue_name == CPU_QUEUE:
        return {}  # the worker's defaults: LAB_SOFT_TIME_LIMIT, LAB_HARD_TIME_LIMIT
    return {"soft_time_limit": settings.LAB_CUDA_SOFT_TIME_LIMIT, "time_limit": settings.LAB_CUDA_HARD_TIME_LIMIT}


# ---------------------------------------------------------------- the worker side


def device_class_of(device: str) -> str:
    return "cpu" if device == "cpu" else "cuda"


def sizes_that_fit(device_class: str, memory_bytes: int | None) -> list[str]:
    """Sizes a worker takes: CPU sizes on a CPU; on a GPU, those whose state and one full-context
    sequence's float32 activations fit its memory (every size when its memory is unknown)."""
    if device_class != "cuda":
        return [name for name, size in SIZES.items() if not size.needs_gpu]
    return [name for name, size in SIZES.items() if memory_bytes is None or size.memory_bytes() <= memory_bytes]


def cpu_memory_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return None


def gpu_memory_bytes() -> int | None:
    """Total memory of the first visible GPU, from nvidia-smi (MiB), or None when it cannot say."""
    nvidia_smi = shutil.which("nvidia-smi")
    if nvidia_smi is None:
        return None
    command = [nvidia_smi, "--query-gpu=memory.total", "--format=csv,noheader,nounits"]
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    if first:
        command += ["-i", first]
    try:
        lines = subprocess.run(command, capture_output=True, text=True, timeout=10, check=True).stdout.split("\n")
        return int(float(lines[0].strip())) * 2**20
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def describe_worker(device: str, max_processes: int, memory_mib: int = 0) -> dict[str, Any]:
    """What a worker publishes in its heartbeat (labs.queue). `memory_mib` (LAB_WORKER_MEMORY_MIB)
    states the memory instead of detecting it: a share of a GPU that several workers use."""
    device_class = device_class_of(device)
    if memory_mib:
        memory = memory_mib * 2**20
    else:
        memory = gpu_memory_bytes() if device_class == "cuda" else cpu_memory_bytes()
    sizes = sizes_that_fit(device_class, memory)
    return {
        "device": device,
        "device_class": device_class,
        "memory_bytes": memory,
        "sizes": sizes,
        "max_processes": max_processes,
        "queues": queues_for(device_class, sizes),
    }


# ---------------------------------------------------------------- the site side


@dataclass(frozen=True)
class Limits:
    """What the site accepts now: from the connected workers, or the operator's override."""

    device_class: str  # "cuda" when a CUDA worker is connected (or LAB_DEVICE_CLASS says so), else "cpu"
    device_classes: tuple[str, ...]  # of the connected workers, e.g. ("cpu", "cuda"); empty: none
    sizes: tuple[str, ...]  # guides-lm sizes a connected worker (or the override) takes
    max_processes: int

    @property
    def run(self) -> lab_config.DeviceLimits:
        """Steps, effective batch and samples one run may have now."""
        return lab_config.DEVICE_LIMITS[self.device_class]


def limits_for(workers: Iterable[Any], *, override: str = "", max_processes: int) -> Limits:
    """`workers`: labs.queue.Worker rows. `override` (LAB_DEVICE_CLASS): "cpu" or "cuda" fixes the
    device class whatever is connected; empty follows the workers. Runs any CPU trains are always
    accepted, even with no worker: they wait in the queue until one comes."""
    workers = list(workers)
    connected = tuple(sorted({worker.device_class for worker in workers}))
    if override in ("cpu", "cuda"):
        device_class, sizes = override, set(sizes_that_fit(override, None))
    else:
        device_class = "cuda" if "cuda" in connected else "cpu"
        sizes = set(sizes_that_fit("cpu", None))
        sizes.update(name for worker in workers if worker.device_class == "cuda" for name in worker.sizes)
    ordered = tuple(name for name in SIZES if name in sizes)
    return Limits(device_class=device_class, device_classes=connected, sizes=ordered, max_processes=max_processes)


def validate_for(data: Any, limits: Limits) -> tuple[lab_config.RunConfig | None, dict[str, list[Problem]]]:
    """validate_config under the limits that apply now, plus the sizes the connected GPUs can hold."""
    config, errors = lab_config.validate_config(
        data, max_processes=limits.max_processes, device_class=limits.device_class
    )
    if config is not None and SIZES[config.size].needs_gpu and config.size not in limits.sizes:
        largest = limits.sizes[-1] if limits.sizes else "tiny"
        return None, {"size": [Problem(SIZE_TOO_BIG, size=config.size, largest=largest)]}
    return config, errors
