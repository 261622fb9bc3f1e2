"""The Celery application. Workers consume the labs' queue, `gpu`: `celery -A config worker -Q gpu`; a
worker with a GPU also consumes `cuda` and the queues of the sizes its memory holds, which it adds
itself at start (labs.workers). Each pool child loads torch when it starts, never the main process that
forks it."""

import os

from celery import Celery
from celery.signals import celeryd_after_setup, worker_process_init, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_heartbeat = {}  # the worker main process's heartbeat: its hostname and the event that stops it


@celeryd_after_setup.connect
def _consume_by_device(sender, instance, **kwargs) -> None:
    """The same command line everywhere: the worker's device decides whether it takes GPU runs."""
    from labs.workers import worker_queues_select

    worker_queues_select(instance.app.amqp.queues)


@worker_process_init.connect
def _prepare_pool_child(**kwargs) -> None:
    """torch and CUDA in the child that trains, before its first run (labs.workers.pool_child_prepare)."""
    import logging

    from labs.workers import pool_child_prepare

    try:
        pool_child_prepare()
    except Exception:  # the child still takes runs: each loads what it needs, and fails with its reason
        logging.getLogger("labs.workers").exception("the pool child could not load torch or CUDA")


@worker_ready.connect
def _publish_worker(sender, **kwargs) -> None:
    """The labs pages list connected workers (labs.workers); runs in the worker's main process only."""
    from labs.workers import worker_heartbeat

    _heartbeat["name"] = sender.hostname
    _heartbeat["stop"] = worker_heartbeat(name=sender.hostname)


@worker_shutdown.connect
def _withdraw_worker(sender, **kwargs) -> None:
    if "stop" not in _heartbeat:
        return
    from labs.workers import worker_forget

    _heartbeat["stop"].set()
    worker_forget(name=_heartbeat["name"])
