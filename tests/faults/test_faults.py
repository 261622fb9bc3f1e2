"""Faults under the run command (see conftest.py): each of its processes killed with SIGKILL while a
lab run is held mid-training, Redis stopped during a burst of submissions, the web server restarted
while a client polls, and Ctrl-C. supervisord starts what died again within seconds while the
others keep their pids; every run ends finished (or failed with a reason), none is lost, no request
is answered with a server error, and no process outlives the one it belonged to.
"""

import os
import re
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from labs.models import LabRun
from tests.polling import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

PAUSE_AT_STEP = 3  # as the stack runs (conftest.py)
SMALL = {  # well under a second of training once torch is loaded
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


def submitted(response: requests.Response) -> int:
    assert response.status_code == 201, response.text
    return response.json()["id"]


def is_held(run_id: int) -> bool:
    return LabRun.objects.filter(pk=run_id, status=LabRun.Status.RUNNING, done_steps=PAUSE_AT_STEP).exists()


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


def assert_no_server_error(run_command, *codes: list[int]) -> None:
    assert [code for answered in codes for code in answered if code >= 500] == []
    assert run_command.server_errors() == []


def final_answer(poller, since: float) -> dict:
    """The poller's answer showing the run ended, from the server as it is after the fault."""

    def ended() -> dict | None:
        body = poller.answered_after(since)
        return body if body and body["status"] not in LabRun.ACTIVE else None

    return wait_for(ended, 60, "the poller to see the run end")


def test_the_run_command_supervises_redis_web_a_worker_and_exactly_one_beat(run_command):
    pids = run_command.pids()
    status = run_command.ctl("status")
    for name in run_command.PROGRAMS:
        assert re.search(rf"^{name}\s+RUNNING\s+pid {pids[name]},", status, re.MULTILINE), status
    beats = [pid for pid in run_command.all_pids() if " beat " in run_command.command_line(pid)]
    assert beats == [pids["beat"]]
    assert "--beat" not in run_command.command_line(pids["worker"])


@pytest.mark.parametrize("victim", ["web", "worker", "pool child", "beat", "redis"])
def test_a_process_killed_mid_run_is_started_again_and_the_run_finishes(run_command, labs_api, poller, victim):
    run_command.hold()
    held_id = submitted(labs_api.submit(SMALL))
    waiting_id = submitted(labs_api.submit({**SMALL, "seed": 2}))  # queued behind it
    wait_for(lambda: is_held(held_id), 120, f"the run to hold at step {PAUSE_AT_STEP}")
    before = run_command.pids()
    pid = run_command.pool_child() if victim == "pool child" else before[victim]
    its_children = run_command.children(pid)  # gunicorn's workers, the Celery worker's pool process
    kill_offset = run_command.log_size()

    with poller(held_id) as polling:
        os.kill(pid, signal.SIGKILL)
        if victim == "pool child":  # the Celery worker replaces it; supervisord has nothing to do
            wait_for(lambda: set(run_command.children(before["worker"])) - {pid}, 60, "a new pool process")
            assert run_command.pids() == before
        else:
            new_pid = run_command.wait_restarted(victim, pid)
            assert run_command.pids() == {**before, victim: new_pid}  # the others kept serving
        restarted_at = time.monotonic()
        gone = [pid, *its_children]
        wait_for(lambda: not any(map(run_command.alive, gone)), 30, "the killed process and its children to end")
        run_command.release()
        wait_for(lambda: all_ended([held_id, waiting_id]), 180, "both runs to end")
        final = final_answer(polling, restarted_at)

    after_id = submitted(labs_api.submit({**SMALL, "seed": 3}))  # the stack as it is now takes new work
    wait_for(lambda: all_ended([after_id]), 120, "a run submitted after the restart to end")
    runs = assert_every_run_settled([held_id, waiting_id, after_id])
    assert {run.status for run in runs.values()} == {"succeeded"}
    assert final["status"] == "succeeded" and len(final["curve"]) == SMALL["steps"]
    if victim in ("worker", "pool child"):  # the training died with it: the sweeper queued the run again
        assert runs[held_id].attempts >= 2
    if victim == "beat":  # the new beat drives the sweeper and the dispatcher
        wait_for(lambda: b"Sending due task" in run_command.output_since(kill_offset), 60, "the new beat to send")
    assert_no_server_error(run_command, labs_api.codes, polling.codes())


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
        assert "redis: stopped" in run_command.ctl("stop", "redis")
        after(4, "submissions with Redis down")  # the first may have been sent before it stopped
        stored_unsent = LabRun.objects.filter(enqueued_at__isnull=True).count()
        assert "redis: started" in run_command.ctl("start", "redis")
        after(3, "submissions after Redis is back")
        done.set()
        burst_done.result()

    # Each submission was answered at once, also the ones made while Redis was down.
    assert [answer.status_code for answer in answers] == [201] * len(answers), [a.text for a in answers]
    assert stored_unsent >= 3  # the outage was real: these waited in the database, not in Redis
    run_ids = [answer.json()["id"] for answer in answers]
    wait_for(lambda: all_ended(run_ids), 240, "the dispatcher and the worker to finish every run")

    runs = assert_every_run_settled(run_ids)
    assert {(run.status, run.attempts) for run in runs.values()} == {("succeeded", 1)}  # each trained once
    assert_no_server_error(run_command, labs_api.codes)


def test_restarting_the_web_server_while_a_client_polls_shows_no_error(run_command, labs_api, poller):
    run_command.hold()
    run_id = submitted(labs_api.submit(SMALL))
    wait_for(lambda: is_held(run_id), 120, f"the run to hold at step {PAUSE_AT_STEP}")
    old_pid = run_command.pids()["web"]

    with poller(run_id) as polling:
        assert "web: started" in run_command.ctl("restart", "web")  # stop, then start: the server is away
        assert run_command.pids()["web"] != old_pid
        restarted_at = time.monotonic()
        run_command.release()
        final = final_answer(polling, restarted_at)

    assert set(polling.codes()) == {200}
    assert final["status"] == "succeeded" and len(final["curve"]) == SMALL["steps"]
    progress = [body["progress"]["done_steps"] for _at, _code, body in polling.answers]
    assert progress == sorted(progress) and progress[0] == PAUSE_AT_STEP  # held, then on to the end
    assert_every_run_settled([run_id])
    assert_no_server_error(run_command, labs_api.codes, polling.codes())


def test_ctrl_c_stops_every_process_and_leaves_none_behind(run_command, labs_api):
    """Last in this module: it stops the shared stack (a test after it would get a fresh one)."""
    run_command.hold()
    run_id = submitted(labs_api.submit(SMALL))
    wait_for(lambda: is_held(run_id), 120, f"the run to hold at step {PAUSE_AT_STEP}")
    pids = run_command.all_pids()
    assert len(pids) >= 1 + len(run_command.PROGRAMS) + 2  # supervisord, its programs, gunicorn's workers, the pool

    run_command.process.send_signal(signal.SIGINT)
    assert run_command.process.wait(timeout=90) == 0
    wait_for(lambda: not any(map(run_command.alive, pids)), 30, "every process of the run command to end")
    assert not (run_command.state_dir / "supervisor.sock").exists()
