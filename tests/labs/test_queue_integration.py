"""A real worker publishes itself while it runs and disappears when it stops."""

import pytest

from labs import selectors, services, workers
from tests.held_runs import held_worker_env
from tests.polling import wait_for

pytestmark = pytest.mark.integration


def _names() -> list[str]:
    return [worker.name for worker in workers.connected_workers()]


def test_a_worker_is_connected_while_it_runs_and_gone_after_it_stops(make_worker):
    # A TTL longer than the test: only the worker's own withdrawal on shutdown can remove it.
    worker = make_worker("queue-a", LAB_WORKER_DEVICE="NVIDIA H200", LAB_WORKER_TTL="600").start()
    name = wait_for(lambda: [n for n in _names() if n.startswith("queue-a@")], 30, "the heartbeat")[0]
    assert [w.device for w in workers.connected_workers() if w.name == name] == ["NVIDIA H200"]
    worker.stop()
    wait_for(lambda: name not in _names(), 30, "the worker to withdraw")


def test_a_worker_killed_outright_disappears_when_its_heartbeat_expires(make_worker):
    worker = make_worker("queue-b", LAB_WORKER_TTL="2").start()
    wait_for(lambda: any(n.startswith("queue-b@") for n in _names()), 30, "the heartbeat")
    worker.kill_hard()
    wait_for(lambda: not any(n.startswith("queue-b@") for n in _names()), 30, "the key to expire")


def test_a_worker_shows_the_run_it_trains_and_the_run_behind_it_waits_first_in_line(
    make_worker, learner, tiny_config, tmp_path
):
    from labs.models import LabRun

    release = tmp_path / "release"
    make_worker("queue-c", **held_worker_env(1, release)).start()
    first = services.lab_run_submit(user=learner, config=tiny_config(steps=3, seed=1))
    second = services.lab_run_submit(user=learner, config=tiny_config(steps=3, seed=2))
    worker = wait_for(
        lambda: [w for w in workers.connected_workers() if w.running == first.pk], 60, "the worker to hold run 1"
    )[0]
    assert worker.name.startswith("queue-c@")
    second.refresh_from_db()
    assert selectors.run_queue(second)["position"] == 1 and selectors.run_queue(second)["workers_connected"] == 1
    release.touch()
    wait_for(lambda: LabRun.objects.filter(pk=second.pk, status="succeeded").exists(), 120, "both runs to finish")
    assert selectors.queue_state().waiting == 0
