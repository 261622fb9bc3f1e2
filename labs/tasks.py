"""Thin Celery tasks (routed to the labs' queue, `gpu`, by CELERY_TASK_ROUTES). Redelivery is safe:
`execute_run` claims the row with a conditional update, so a message that arrives twice trains once.
"""

from celery import shared_task

from .execution import lab_run_execute
from .services import lab_runs_dispatch_pending, lab_runs_sweep_stale
from .workers import EXECUTE_RUN, lab_run_pass_on, this_worker


@shared_task(name=EXECUTE_RUN, bind=True, acks_late=True)
def execute_run(self, run_id: int) -> None:
    if lab_run_pass_on(run_id=run_id, worker=this_worker()):
        return
    lab_run_execute(run_id=run_id, worker=self.request.hostname or "")


@shared_task(name="labs.tasks.sweep_stale_runs")
def sweep_stale_runs() -> dict[str, int]:
    return lab_runs_sweep_stale()


@shared_task(name="labs.tasks.dispatch_pending_runs")
def dispatch_pending_runs() -> int:
    return lab_runs_dispatch_pending()
