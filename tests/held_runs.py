"""Test-only: runs that hold at a step until a file exists, so a test acts on a run mid-way (cancels
it, kills its worker) at a known step whatever the machine's speed. Production code has no such
hook: labs.execution.lab_run_execute takes the run's Reporter as a parameter, and this is one.

In this process: ``lab_run_execute(run_id=..., worker=..., reporter=held_at(2, release_file))``.
In a worker process (a test's, or the run command's under tests/faults): start it with the
environment ``held_worker_env(step, release_file)``; tests/held_worker.py then gives its runs this
reporter."""

import logging
from functools import partial
from pathlib import Path

from labs.execution import Reporter

logger = logging.getLogger(__name__)
STEP_ENV, RELEASE_ENV = "HELD_RUNS_AT_STEP", "HELD_RUNS_RELEASE_FILE"


class HeldReporter(Reporter):
    """A Reporter that, after step ``hold_at_step``, writes that step's progress and waits (the
    heartbeat still beating) until ``release`` exists, the learner cancels or the run is no longer ours."""

    def __init__(self, mine, *, run_id: int, hold_at_step: int, release: Path) -> None:
        super().__init__(mine, run_id=run_id)
        self.hold_at_step, self.release = hold_at_step, Path(release)

    def on_progress(self, point, done_steps: int, total_steps: int) -> None:
        super().on_progress(point, done_steps, total_steps)
        if done_steps != self.hold_at_step or self.release.exists():
            return
        if self.written < len(self.curve):
            self.write(done_steps)  # the held step is in the database, whatever the write interval
        logger.info("lab run %s held at step %s until %s exists", self.run_id, done_steps, self.release)
        while not self.release.exists() and not self.stop.wait(0.05):
            if not self.mine.filter(cancel_requested=False).exists():
                self.stop.set()


def held_at(step: int, release: Path | str) -> partial:
    """The ``reporter`` argument of lab_run_execute for runs held after ``step``."""
    return partial(HeldReporter, hold_at_step=step, release=Path(release))


def held_worker_env(step: int, release: Path | str) -> dict[str, str]:
    """The environment of a worker whose runs hold after ``step`` until ``release`` exists."""
    return {"DJANGO_SETTINGS_MODULE": "tests.held_worker_settings", STEP_ENV: str(step), RELEASE_ENV: str(release)}
