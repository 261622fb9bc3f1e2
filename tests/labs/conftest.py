"""Lab fixtures: runs in every state, made through the real services where it matters."""

import pytest
import redis
from django.conf import settings
from django.utils import timezone

from labs import workers
from labs.models import LabRun
from labs.training.config import CODE_VERSION, config_fingerprint, validate_config

TINY = {
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 16,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 3,
    "seed": 0,
    "grad_clip": None,
}


def _tiny_config(**changes):
    config, errors = validate_config({**TINY, **changes})
    assert config is not None, errors
    return config


@pytest.fixture
def tiny_config():
    """A RunConfig that trains in well under a second: `tiny_config(steps=5)`."""
    return _tiny_config


@pytest.fixture
def other_learner(db):
    from accounts.services import account_create

    return account_create(
        username="bilal",
        email="bilal@example.com",
        password="another-Passphrase-43",
        full_name="Bilal Khan",
        language="en",
    )


@pytest.fixture
def make_run(db):
    """A stored run in any state, without going through the queue."""

    def factory(user, status=LabRun.Status.QUEUED, preset="", **fields):
        config = _tiny_config(**fields.pop("config", {}))
        finished = status in (LabRun.Status.SUCCEEDED, LabRun.Status.FAILED, LabRun.Status.CANCELLED)
        point = {"grad_norm": 1.0, "lr": 0.05, "tokens": None}
        steps = range(1, config.steps + 1) if finished else []
        curve = [{**point, "step": s, "loss": 2.0 / s, "samples": 16 * s, "seconds": 0.1 * s} for s in steps]
        defaults = {
            "user": user,
            "preset": preset,
            "preset_index": 0 if preset else None,
            "config": config.to_dict(),
            "fingerprint": config_fingerprint(config),
            "code_version": CODE_VERSION,
            "status": status,
            "total_steps": config.steps,
            "done_steps": len(curve),
            "curve": curve,
            "metrics": {"final_loss": 0.5, "val_accuracy": 0.9, "peak_activation_bytes": 4096} if finished else {},
            "finished_at": timezone.now() if finished else None,
        }
        defaults.update(fields)
        return LabRun.objects.create(**defaults)

    return factory


@pytest.fixture
def reference_sweep(db):
    """A finished reference sweep of a preset as the worker stores it: `reference_sweep("memory-vs-n")`.
    Each run's curve and metrics differ, so captions must pick the right run's numbers."""
    import uuid

    from labs.presets import PRESETS
    from labs.reference import preset_fingerprints, reference_results_changed

    def factory(slug: str, status=LabRun.Status.SUCCEEDED, **metrics) -> list[LabRun]:
        preset, sweep = PRESETS[slug], uuid.uuid4()
        runs = []
        for index, ((_label, config), fp) in enumerate(zip(preset.configs(), preset_fingerprints(preset), strict=True)):
            steps = config["steps"]
            curve = [
                {"step": s, "loss": 2.0 / s + 0.01 * index, "samples": s, "seconds": 0.01 * s}
                for s in range(1, steps + 1)
            ]
            run_metrics = {
                "final_loss": curve[-1]["loss"],
                "val_loss": 0.5,
                "val_accuracy": 0.9,
                "peak_activation_bytes": 1_048_576 // (index + 1),
                "grad_equivalence_error": 10.0 ** -(7 - index),
                "allreduce_calls": [0, 60, 120][index] if index < 3 else None,
                "allreduce_bytes": [0, 6_392_160, 12_784_320][index] if index < 3 else None,
                "wall_seconds": 1.5,
                "diverged": False,
                **metrics,
            }
            runs.append(
                LabRun.objects.create(
                    user=None,
                    reference=True,
                    preset=slug,
                    preset_index=index,
                    sweep=sweep,
                    config=config,
                    fingerprint=fp,
                    code_version=CODE_VERSION,
                    status=status,
                    total_steps=steps,
                    done_steps=steps,
                    curve=curve,
                    metrics=run_metrics,
                    device="NVIDIA H200",
                    finished_at=timezone.now(),
                )
            )
        reference_results_changed()
        return runs

    return factory


@pytest.fixture
def empty_broker():
    """Messages that earlier tests left in the broker name run ids this test's database reuses:
    a worker taking one would train the wrong run. Empties every lab queue (the size queues and
    kombu's per-priority lists too) before and after; yields the broker's Redis client."""
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    def empty() -> None:
        for name in (workers.LAB_QUEUE, workers.CUDA_QUEUE):
            for key in client.scan_iter(match=name + "*"):
                client.delete(key)

    empty()
    yield client
    empty()
