"""Faults under the run command's own processes (see conftest.py): the Celery worker killed with
SIGKILL mid-run, Redis stopped during a burst of submissions, the web server restarted while a
client polls. Afterwards every submitted run is finished, or failed with a reason; none is lost,
none is left running, and no request was answered with a server error.
"""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from labs.models import LabRun

pytestmark = pytest.mark.integration

SMALL = {  # well under a second of training
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 32,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 12,
    "seed": 1,
}
LONG = {**SMALL, "task": "digits-cnn", "effective_batch_size": 128, "accumulation_steps": 1, "steps": 300}  # seconds
MEDIUM = {**LONG, "effective_batch_size": 64, "steps": 150}


def wait_for(check, timeout: float, what: str, every: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := check():
            return value
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def submitted(response: requests.Response) -> int:
    assert response.status_code == 201, response.text
    return response.json()["id"]


def all_ended(run_ids: list[int]) -> bool:
    return not LabRun.objects.filter(pk__in=run_ids, status__in=LabRun.ACTIVE).exists()


def assert_every_run_settled(run_ids: list[int]) -> dict[int, LabRun]:
    runs = {run.pk: run for run in LabRun.objects.all()}
    assert sorted(runs) == sorted(run_ids)  # none lost, none made up
    for run in runs.values():
        if run.status == LabRun.Status.SUCCEEDED:
            assert len(run.curve) == run.done_steps == run.total_steps, run.pk
        else:
            assert run.status == LabRun.Status.FAILED and run.error_message, (run.pk, run.status)
    return runs


def assert_no_server_error(run_command, labs_api) -> None:
    assert [code for code in labs_api.codes if code >= 500] == []
    assert run_command.server_errors() == []


def test_a_worker_killed_mid_run_and_started_again_finishes_every_run(run_command, labs_api):
    long_id = submitted(labs_api.submit(LONG))
    small_ids = [submitted(labs_api.submit({**SMALL, "seed": seed})) for seed in (2, 3)]
    wait_for(
        lambda: LabRun.objects.filter(pk=long_id, status="running", done_steps__gte=1).exists(),
        120,
        "the long run to be training",
        every=0.05,  # kill it early in its training, whatever the speed of the machine
    )
    run_command.worker.kill_hard()  # worker, pool child and embedded beat, without a word
    assert LabRun.objects.get(pk=long_id).status == "running"

    run_command.worker.start()
    wait_for(lambda: all_ended([long_id, *small_ids]), 240, "every run to end after the restart")

    runs = assert_every_run_settled([long_id, *small_ids])
    assert runs[long_id].status == "succeeded" and runs[long_id].attempts >= 2  # claimed again after the kill
    assert [(runs[pk].status, runs[pk].attempts) for pk in small_ids] == [("succeeded", 1)] * 2
    assert_no_server_error(run_command, labs_api)


def test_redis_stopped_and_started_during_a_burst_of_submissions_loses_no_run(run_command, labs_api):
    answers: list[requests.Response] = []
    done = threading.Event()

    def burst() -> None:
        seed = 100
        while not done.is_set():
            answers.append(labs_api.submit({**SMALL, "seed": seed}))
            seed += 1
            time.sleep(0.25)

    def after(count: int, what: str) -> None:
        target = len(answers) + count
        wait_for(lambda: len(answers) >= target, 90, what)

    with ThreadPoolExecutor(1) as pool:
        burst_done = pool.submit(burst)
        after(3, "submissions with Redis up")
        run_command.redis.stop()
        after(3, "submissions with Redis down")
        stored_unsent = LabRun.objects.filter(enqueued_at__isnull=True).count()
        run_command.redis.start()
        after(3, "submissions after Redis is back")
        done.set()
        burst_done.result()

    assert [answer.status_code for answer in answers] == [201] * len(answers), [a.text for a in answers]
    assert stored_unsent >= 3  # the outage was real: these waited in the database, not in Redis
    assert max(answer.elapsed.total_seconds() for answer in answers) < 5  # nobody waits out the outage
    run_ids = [answer.json()["id"] for answer in answers]
    wait_for(lambda: all_ended(run_ids), 240, "the dispatcher and the worker to finish every run")

    runs = assert_every_run_settled(run_ids)
    assert {(run.status, run.attempts) for run in runs.values()} == {("succeeded", 1)}  # each trained once
    assert_no_server_error(run_command, labs_api)


def test_restarting_the_web_server_while_a_client_polls_shows_no_error(run_command, labs_api):
    run_id = submitted(labs_api.submit(MEDIUM))
    progress: list[int] = []
    refused = 0
    restarted = threading.Event()

    def poll() -> dict:
        """A client that retries while the server is away, as the lab page's polling does. It polls
        until the run ended and it has been answered by the restarted server."""
        nonlocal refused
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            answered_by_new_server = restarted.is_set()
            try:
                response = labs_api.read(run_id)
            except requests.ConnectionError:
                refused += 1
            else:
                body = response.json()
                progress.append(body["progress"]["done_steps"])
                if body["status"] not in LabRun.ACTIVE and answered_by_new_server:
                    return body
            time.sleep(0.1)
        raise AssertionError("the run did not end while polling")

    with ThreadPoolExecutor(1) as pool:
        polled = pool.submit(poll)
        wait_for(lambda: LabRun.objects.filter(pk=run_id, status="running").exists(), 120, "training to start")
        run_command.web.stop()
        run_command.web.start()
        restarted.set()
        final = polled.result()

    assert refused >= 1  # the client did poll across the restart
    assert set(labs_api.codes) == {200, 201}
    assert final["status"] == "succeeded" and len(final["curve"]) == MEDIUM["steps"]
    assert progress == sorted(progress)  # the progress never went backwards
    assert_every_run_settled([run_id])
    assert_no_server_error(run_command, labs_api)
