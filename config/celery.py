"""The Celery application. Workers consume the `gpu` queue: `celery -A config worker -Q gpu`."""

import os

from celery import Celery
from celery.signals import worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_heartbeat = {}  # the worker main process's heartbeat: its hostname and the event that stops it


@worker_ready.connect
def _publish_worker(sender, **kwargs) -> None:
    """The labs pages list connected workers (labs.queue); runs in the worker's main process only."""
    from labs.queue import worker_heartbeat

    _heartbeat["name"] = sender.hostname
    _heartbeat["stop"] = worker_heartbeat(name=sender.hostname)


@worker_shutdown.connect
def _withdraw_worker(sender, **kwargs) -> None:
    if "stop" not in _heartbeat:
        return
    from labs.queue import worker_forget

    _heartbeat["stop"].set()
    worker_forget(name=_heartbeat["name"])
