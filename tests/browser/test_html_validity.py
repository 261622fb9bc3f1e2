"""The Nu Html Checker (npm vnu-jar, installed by `bin/setup --test`) finds no error in the main
pages, in every language, as a signed-in learner or a visitor sees them."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.test import Client

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
VNU = ROOT / ".cache" / "vnu" / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
LANGUAGES = ("en", "hi", "fr")


def nu_errors(files: list[Path]) -> list[str]:
    """Every error the checker reports, as 'file:line: message'; one JVM for all the files."""
    if not VNU.exists() or not shutil.which("java"):
        pytest.fail(f"the Nu Html Checker is not installed at {VNU.relative_to(ROOT)}: run bin/setup --test")
    result = subprocess.run(
        ["java", "-Xss8m", "-jar", str(VNU), "--errors-only", "--format", "json", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    report = json.loads(result.stderr or result.stdout)  # vnu writes its JSON report to stderr
    assert result.returncode in (0, 1), result.stderr[-2000:]
    return [
        f"{Path(m.get('url', '')).name}:{m.get('lastLine', '?')}: {m['message']} [{m.get('extract', '').strip()}]"
        for m in report["messages"]
        if m["type"] == "error" or m.get("subType") == "fatal"
    ]


def test_the_main_pages_are_valid_html(main_pages, tmp_path):
    signed_in, signed_out = Client(), Client()
    signed_in.force_login(main_pages.user)
    files = []
    for language in LANGUAGES:
        for name, path, needs_login in main_pages.for_language(language):
            response = (signed_in if needs_login else signed_out).get(path)
            assert response.status_code == 200, (path, response.status_code)
            file = tmp_path / f"{language}-{re.sub(r'[^a-z]+', '-', name)}.html"
            file.write_bytes(response.content)
            files.append(file)
    assert nu_errors(files) == []


def test_the_checker_does_report_an_error(tmp_path):
    """Guards the test above against a checker that silently checks nothing."""
    broken = tmp_path / "broken.html"
    broken.write_text(
        '<!doctype html><html lang="en"><title>x</title><p><ul><li>x</li></ul></p><b id="a" id="a">', encoding="utf-8"
    )
    assert any("broken.html" in error for error in nu_errors([broken]))
