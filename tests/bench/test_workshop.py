"""The workshop scenario, briefly: bench/workshop.py starts a copy of the site with its own rate
limits and a classroom's network trusted, and a few Locust learners from one address sign up, read
(narration ranges included), answer a quiz by htmx, run a preset and an API run each and watch them
end. It checks outcomes, never timings: no server error, no failed request, no lost or stuck run,
no "database is locked", and that every part of a learner's visit was made. The full run (100
learners, 15 minutes) is `make bench`'s and docs/SCALING.md's."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
EVERY_STEP = (
    "sign up",
    "guide page",
    "quiz start",
    "quiz answer (htmx)",
    "quiz finish",
    "preset run",
    "api token create",
    "api submit",
    "run page",
    "dashboard",
)

# The copy keeps its own SQLite database whatever DATABASE_URL says (bench/workshop.py --postgres is
# the benchmark's own PostgreSQL run); Locust and a Celery worker train real runs.
# The site's set-up (migrate, content, static files, a worker that loads PyTorch) takes minutes on a busy machine.
pytestmark = [pytest.mark.integration, pytest.mark.own_database, pytest.mark.slow, pytest.mark.timeout(1200)]


def test_a_few_learners_from_one_address_go_through_a_workshop_without_an_error(tmp_path):
    out = tmp_path / "workshop.json"
    command = [sys.executable, "bench/workshop.py", "--learners", "3", "--duration", "40", "--think-scale", "0.02"]
    command += ["--drain", "300", "--json", str(out)]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1100)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    report = json.loads(out.read_text())
    locust, runs = report["locust"], report["runs"]
    assert report["broken"] == [] and locust["problems"] == []
    assert locust["total"]["requests"] > 0 and locust["total"]["failures"] == 0
    assert not [key for key in locust["statuses"] if key.rsplit(" ", 1)[1].startswith("5")]
    for step in EVERY_STEP:  # each part of a learner's visit was made and answered as expected
        assert locust["types"].get(step, {}).get("requests", 0) > 0, (step, sorted(locust["types"]))
    assert locust["learners"]["signed up"] == 3
    if shutil.which("espeak-ng") and shutil.which("opusenc"):  # the summaries were recorded: players to fetch
        assert report["settings"]["narration_summaries_recorded"] > 0
        assert locust["types"]["narration range"]["requests"] > 0
    # Every run a learner got accepted ended: trained, or reused from an identical one; none lost or stuck.
    assert runs["accepted"] > 0 and runs["found"] == runs["accepted"]
    assert runs["lost"] == [] and runs["stuck"] == [] and runs["failed_without_reason"] == []
    assert set(runs["statuses"]) <= {"succeeded", "failed", "cancelled"}
    assert runs["trained"] > 0 and runs["queue_wait_s"]["p95"] is not None
    assert report["logs"]["database is locked"] == 0
    assert "request type" in result.stdout and "queue wait p50" in result.stdout
