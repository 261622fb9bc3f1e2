"""The short version of bench/load.py: the site under gunicorn with production settings, driven by
wrk, answers every request of every page with a 2xx. It checks correctness under load, not speed
(the full run, `make bench`, reports the figures in docs/PERFORMANCE.md)."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PUBLIC_PAGES = ("guide page", "home page", "guide list", "quiz landing", "preset page", "certificate page")
PAGES = {
    "first-time": ("minimal view", *PUBLIC_PAGES),
    # A learner's pages are judged by their cost: no minimal view to compare with.
    "signed-in": (
        "dashboard",
        "course page",
        *PUBLIC_PAGES,
        "quiz in progress",
        "lab index",
        "run page",
        "compare page",
    ),
}

# The copy of the site keeps its own SQLite database whatever DATABASE_URL says: on PostgreSQL it
# would only run the same test again.
pytestmark = [pytest.mark.integration, pytest.mark.own_database, pytest.mark.slow]


@pytest.mark.parametrize("visitors", ["first-time", "signed-in"])
def test_every_page_serves_load_without_a_single_error_or_non_2xx(tmp_path, visitors):
    if shutil.which("wrk") is None:
        pytest.fail("wrk is not installed; bin/setup --test installs it (Debian package wrk)")
    out = tmp_path / "load.json"
    command = [sys.executable, "bench/load.py", "--duration", "1", "--rounds", "1", "--connections", "4"]
    command += ["--json", str(out), *(["--signed-in"] if visitors == "signed-in" else [])]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=420)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    results = json.loads(out.read_text())
    assert results["settings"]["visitors"] == visitors
    pages = results["pages"]
    assert sorted(pages) == sorted(PAGES[visitors])
    for name, page in pages.items():
        assert page["non2xx"] == 0 and page["socket_errors"] == 0, (name, page)
        assert page["requests"] > 0 and page["rps"] > 0 and page["server_cpu_ms"] > 0, (name, page)
        assert any(line.startswith(name) and "/" in line for line in result.stdout.splitlines()), name
        if visitors == "signed-in":  # each page's queries, counted on a first view and once cached
            queries = page["queries"]
            assert 0 < queries["cached"] <= queries["first_view"], (name, queries)
        else:
            assert "queries" not in page and page["ratio_to_minimal"] > 0, (name, page)
