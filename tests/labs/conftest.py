"""Lab fixtures: runs in every state, made through the real services where it matters."""

import pytest
from django.utils import timezone

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
