"""A real worker publishes itself while it runs and disappears when it stops."""

import time

import pytest

from labs import queue

pytestmark = pytest.mark.integration


def _wait_for(check, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def _names() -> list[str]:
    return [worker.name for worker in queue.connected_workers()]


def test_a_worker_is_connected_while_it_runs_and_gone_after_it_stops(make_worker):
    worker = make_worker("queue-a", LAB_WORKER_DEVICE="cpu").start()
    name = _wait_for(lambda: [n for n in _names() if n.startswith("queue-a@")], 30, "the heartbeat")[0]
    assert queue.connected_workers()[0].device == "cpu"
    worker.stop()
    _wait_for(lambda: name not in _names(), 30, "the worker to withdraw")


def test_a_worker_killed_outright_disappears_when_its_heartbeat_expires(make_worker):
    worker = make_worker("queue-b", LAB_WORKER_TTL="2").start()
    _wait_for(lambda: any(n.startswith("queue-b@") for n in _names()), 30, "the heartbeat")
    worker.kill_hard()
    _wait_for(lambda: not any(n.startswith("queue-b@") for n in _names()), 30, "the key to expire")
