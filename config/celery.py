"""The Celery application. Workers consume the `gpu` queue: `celery -A config worker -Q gpu`; a worker
with a GPU also consumes `cuda` (runs that need one), which it adds itself at start (labs.devices)."""

import os

from celery import Celery
from celery.signals import celeryd_after_setup, worker_ready, worker_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

_heartbeat = {}  # the worker main process's heartbeat: its hostname and the event that stops it


@celeryd_after_setup.connect
def _consume_by_device(sender, instance, **kwargs) -> None:
    """The same command line everywhere: the worker's device decides whether it takes GPU runs."""
    from labs.devices import CUDA_QUEUE, device_class_of
    from labs.queue import worker_device

    queues = instance.app.amqp.queues
    if device_class_of(worker_device()) == "cuda":
        queues.select_add(CUDA_QUEUE)
    elif CUDA_QUEUE in queues.consume_from:  # `-Q gpu,cuda` on a CPU: it would only fail those runs
        queues.deselect(CUDA_QUEUE)


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
