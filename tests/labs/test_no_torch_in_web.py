"""The web process never imports torch, transformers or accelerate: slow to load, needed by the worker alone."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import importlib, pkgutil, sys
import django
django.setup()
from django.urls import get_resolver
import config.urls
get_resolver().url_patterns  # loads every app's urls, hence its views
from django.contrib import admin
admin.autodiscover()
import labs.api, labs.tasks, labs.execution, labs.services, labs.selectors, labs.workers
for app in ("accounts", "course", "quizzes", "labs", "config"):
    for module in pkgutil.iter_modules([app]):
        if module.name.startswith(("views", "api")):
            importlib.import_module(f"{app}.{module.name}")
from config.celery import app
app.loader.import_default_modules()  # what a worker's parent process imports before forking
# transformers and accelerate (guide 5's worked example) are as heavy and as unwelcome here
heavy = ("torch", "transformers", "accelerate")
print(any(name in sys.modules for name in heavy), "labs.views" in sys.modules, "labs.tasks" in sys.modules)
"""


def test_importing_urls_views_and_tasks_leaves_torch_out():
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True", "True"]
