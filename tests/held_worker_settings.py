"""Test-only settings: the site's, with tests/held_worker.py imported by Celery workers (held runs:
tests/held_runs.py)."""

from config.settings import *  # noqa: F403

CELERY_IMPORTS = ["tests.held_worker"]
