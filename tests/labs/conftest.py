"""Lab fixtures: runs in every state (tests/factories.py builds them), and the broker emptied."""

import pytest
import redis
from django.conf import settings

from labs import workers
from tests import factories


@pytest.fixture
def tiny_config():
    """A RunConfig that trains in well under a second: `tiny_config(steps=5)`."""
    return factories.tiny_config


@pytest.fixture
def other_learner(db):
    return factories.other_account()


@pytest.fixture
def make_run(db):
    """A stored run in any state, without going through the queue: `make_run(user, status=..., config={...})`."""
    return factories.lab_run


@pytest.fixture
def reference_sweep(db):
    """A finished reference sweep of a preset as the worker stores it: `reference_sweep("memory-vs-n")`."""
    return factories.reference_sweep


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
