"""Settings of the unit run (`make unit`, bin/unit): the site's own, with no server behind them.

The cache is Django's local-memory one (one per test process, cleared by each test like Redis in the
whole suite) and Celery's broker its in-memory transport: a run submitted in a unit test is sent to
a queue that no worker reads, as when no worker is connected. Tests that need the real Redis or a
Celery worker process carry the `integration` marker, which the unit run leaves out."""

from config.settings import *  # noqa: F403  (these are the site's settings, with two changes)
from config.settings import SILENCED_SYSTEM_CHECKS

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "unit-tests",
        "KEY_PREFIX": "gacourse",
    }
}
# django-ratelimit refuses a cache that other processes do not share; one test process is all there is.
SILENCED_SYSTEM_CHECKS = [*SILENCED_SYSTEM_CHECKS, "django_ratelimit.E003"]

CELERY_BROKER_URL = "memory://"
