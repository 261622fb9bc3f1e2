"""Test-only: imported by a Celery worker started with tests.held_runs.held_worker_env (through
tests/held_worker_settings.py). It registers, under the real task's name, the same task with the
reporter that holds runs at a step (tests/held_runs.py): Celery's register_task replaces a task of
the same name."""

import os

from config.celery import app
from labs.execution import lab_run_execute
from labs.workers import EXECUTE_RUN, lab_run_pass_on, this_worker
from tests.held_runs import RELEASE_ENV, STEP_ENV, held_at


class ExecuteHeldRun(app.Task):
    """labs.tasks.execute_run, with held runs."""

    name = EXECUTE_RUN
    acks_late = True

    def run(self, run_id: int) -> None:
        if lab_run_pass_on(run_id=run_id, worker=this_worker()):
            return
        reporter = held_at(int(os.environ[STEP_ENV]), os.environ[RELEASE_ENV])
        lab_run_execute(run_id=run_id, worker=self.request.hostname or "", reporter=reporter)


app.register_task(ExecuteHeldRun())  # replaces labs.tasks.execute_run in this worker
