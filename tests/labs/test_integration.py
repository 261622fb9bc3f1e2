"""The labs end to end: a real Redis, real Celery worker processes, real training on the CPU.

Timings are shortened through the environment (heartbeat, stale threshold, beat intervals) so
that a dead worker is noticed in seconds; production uses the defaults in config/settings.py.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from accounts.models import ApiToken
from config.celery import app as celery_app
from labs.models import LabRun
from tests.held_runs import held_worker_env
from tests.polling import wait_for

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
FAST = {
    "LAB_HEARTBEAT_INTERVAL": "0.5",
    "LAB_STALE_AFTER": "4",
    "LAB_PROGRESS_INTERVAL": "0.2",
    "LAB_SWEEP_INTERVAL": "1",
    "LAB_DISPATCH_INTERVAL": "1",
}
SMALL = {
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 32,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 12,
    "seed": 3,
}


def run_ended(run_id: int):
    run = LabRun.objects.get(pk=run_id)
    return run if run.status in ("succeeded", "failed", "cancelled") else None


class Beat:
    """`celery -A config beat`: what the run command's `--beat` starts inside the worker."""

    def __init__(self, env: dict[str, str], tmp_path: Path) -> None:
        self.log_path = tmp_path / "beat.log"
        self.log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(tmp_path / "beat-schedule"),
            ],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
        self.log.close()


@pytest.fixture
def start_beat(tmp_path):
    beats = []

    def factory(env: dict[str, str]) -> Beat:
        beats.append(Beat(env, tmp_path))
        return beats[-1]

    yield factory
    for beat in beats:
        beat.stop()


@pytest.fixture
def api(client, learner):
    _token, raw = ApiToken.issue(user=learner, name="integration")

    def submit(config: dict) -> dict:
        response = client.post(
            "/api/labs/runs",
            json.dumps(config),
            content_type="application/json",
            headers={"Authorization": f"Bearer {raw}"},
        )
        assert response.status_code == 201, response.content
        return response.json()

    submit.read = lambda run_id: client.get(f"/api/labs/runs/{run_id}", headers={"Authorization": f"Bearer {raw}"})
    return submit


def test_a_run_submitted_through_the_api_trains_on_the_worker_to_succeeded(celery_worker, api):
    created = api(SMALL)
    assert created["status"] == "queued"
    wait_for(lambda: run_ended(created["id"]), 180, "the run to end")
    body = api.read(created["id"]).json()
    assert body["status"] == "succeeded", (body["error"], celery_worker.log_path.read_text()[-3000:])
    assert [point["step"] for point in body["curve"]] == list(range(1, 13))
    assert body["progress"]["percent"] == 100 and body["device"] == "cpu"
    assert body["metrics"]["final_loss"] > 0 and body["metrics"]["samples_per_second"] > 0


def test_a_run_whose_worker_is_killed_is_finished_by_another_never_left_running(make_worker, start_beat, api, tmp_path):
    # The first worker holds the run after step 3 (never released), so the kill lands mid-run on any machine.
    hold = held_worker_env(3, tmp_path / "never-released")
    first = make_worker("doomed", **FAST, **hold).start()
    created = api({**SMALL, "task": "digits-cnn", "accumulation_steps": 1, "steps": 150})
    wait_for(lambda: LabRun.objects.get(pk=created["id"]).done_steps == 3, 180, "training to reach step 3")
    first.kill_hard()
    run = LabRun.objects.get(pk=created["id"])
    assert (run.status, run.done_steps) == ("running", 3)  # its worker is gone without a word

    second = make_worker("rescuer", **FAST).start()
    start_beat(second.env)
    run = wait_for(lambda: run_ended(created["id"]), 240, "the sweeper and the second worker")
    if run.status == "succeeded":
        assert run.attempts == 2 and len(run.curve) == 150 and "rescuer" in run.worker
    else:
        assert run.status == "failed" and run.error_message


@pytest.fixture
def own_redis(tmp_path):
    """A Redis of this test's own, which it can stop and start again on the same port."""
    server = shutil.which("redis-server") or str(ROOT / ".venv" / "bin" / "redis-server")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"

    class OwnRedis:
        process = None

        def start(self):
            self.process = subprocess.Popen(
                [
                    server,
                    "--port",
                    str(port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(tmp_path),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            wait_for(lambda: self.ping(), 20, "redis-server to start")

        def stop(self):
            self.process.terminate()
            self.process.wait(timeout=20)

        def ping(self):
            try:
                return redis.Redis.from_url(url, socket_connect_timeout=1).ping()
            except redis.RedisError:
                return False

    own = OwnRedis()
    own.url = url
    own.start()
    yield own
    if own.process.poll() is None:
        own.stop()


@pytest.fixture
def broker_at(settings):
    """Point this process's Celery app (and cache) at another Redis, as the web process would be."""
    saved = celery_app.conf.broker_url

    def point(url: str) -> None:
        settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": url}}
        celery_app.conf.broker_url = url
        celery_app._pool = None
        celery_app.amqp._producer_pool = None

    yield point
    point(saved)


def test_a_run_submitted_while_redis_is_down_is_stored_and_runs_once_redis_is_back(
    own_redis, broker_at, make_worker, start_beat, api
):
    broker_at(own_redis.url)
    own_redis.stop()

    created = api(SMALL)  # 201 although neither the broker nor the cache answers
    run = LabRun.objects.get(pk=created["id"])
    assert run.status == "queued" and run.enqueued_at is None

    own_redis.start()
    worker = make_worker("after-outage", REDIS_URL=own_redis.url, **FAST).start()
    start_beat(worker.env)
    run = wait_for(lambda: run_ended(created["id"]), 180, "the dispatcher and the worker")
    assert run.status == "succeeded" and len(run.curve) == SMALL["steps"]
    assert run.enqueued_at is not None
