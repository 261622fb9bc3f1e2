"""How bench/report.py writes Lighthouse's figures (bench/lighthouse.py), from reports shaped as
Lighthouse 12 writes them. Lighthouse itself runs only in `make bench`, never in the tests."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import lighthouse  # noqa: E402
import pytest  # noqa: E402
from lighthouse import CATEGORIES, in_language, median_of, summarize  # noqa: E402
from report import LIGHTHOUSE_TITLE, lighthouse_section, replace_section  # noqa: E402

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)


def lighthouse_report(performance: float, *, crawlable: bool = True) -> dict:
    """The parts of a Lighthouse JSON report that bench/lighthouse.py reads."""
    audits = {
        "first-contentful-paint": {"numericValue": 900.0},
        "largest-contentful-paint": {"numericValue": 1500.0},
        "total-blocking-time": {"numericValue": 120.0},
        "cumulative-layout-shift": {"numericValue": 0.0},
        "dom-size": {"numericValue": 700},
        "is-crawlable": {"score": 1 if crawlable else 0, "title": "Page is blocked from indexing"},
        "color-contrast": {"score": 1, "title": "Background and foreground colors have enough contrast"},
        "manual-check": {"score": None, "title": "Manual check"},
    }
    refs = {
        "performance": [],
        "accessibility": [{"id": "color-contrast", "weight": 7}, {"id": "manual-check", "weight": 0}],
        "best-practices": [],
        "seo": [{"id": "is-crawlable", "weight": 4.04}],
    }
    scores = {"performance": performance, "accessibility": 1, "best-practices": 1, "seo": 1 if crawlable else 0.63}
    categories = {name: {"score": scores[name], "auditRefs": refs[name]} for name in CATEGORIES}
    return {"categories": categories, "audits": audits}


MACHINE = {"date": "2026-12-03 14:00 UTC", "cores": 2, "load_average_5min": [1.5, 2.25]}


def row(page: str, language: str, runs: list[dict]) -> dict:
    return {"page": page, "language": language, "path": in_language("/en/x/", language), **median_of(runs)}


def test_scores_are_the_median_of_the_runs_and_failing_audits_are_named():
    runs = [summarize(lighthouse_report(p)) for p in (0.90, 0.97, 0.96)]
    assert runs[0]["scores"] == {"performance": 90, "accessibility": 100, "best-practices": 100, "seo": 100}
    assert runs[0]["metrics"]["DOM elements"] == 700 and runs[0]["failing"] == {}
    assert median_of(runs)["scores"]["performance"] == 96
    blocked = summarize(lighthouse_report(0.99, crawlable=False))
    assert blocked["failing"] == {"is-crawlable": "Page is blocked from indexing"}


def test_the_section_says_which_page_misses_its_aim():
    fast, slow = summarize(lighthouse_report(0.97)), summarize(lighthouse_report(0.80))
    result = {
        "settings": {"runs": 1},
        "lighthouse": "12.2.3",
        "chromium": "Chromium 1",
        "pages": [],
        "machine": MACHINE,
    }
    result["pages"] = [row("guide page", "en", [fast]), row("guide page", "hi", [slow]), row("home", "fr", [slow])]
    text = "\n".join(lighthouse_section(result))
    assert "| guide page (`/hi/x/`) | hi | 80 | 100 | 100 | 100 | 900 | 1500 | 120 | 0.000 | 700 |" in text
    assert "Short of them: guide page hi performance 80; home fr performance 80." in text  # every page
    assert "Lowest performance: guide page hi, 80 (LCP 1500 ms, TBT 120 ms, 700 DOM elements)." in text
    assert "load average was 1.5 at the start and 2.2 at the end" in text


def test_a_certificate_page_may_fail_only_the_indexing_audit():
    blocked = summarize(lighthouse_report(0.99, crawlable=False))
    result = {
        "settings": {"runs": 1},
        "lighthouse": "12.2.3",
        "chromium": "Chromium 1",
        "pages": [],
        "machine": MACHINE,
    }
    result["pages"] = [row("certificate", "en", [blocked])]
    assert "Every page meets them." in "\n".join(lighthouse_section(result))
    result["pages"] = [row("home", "en", [blocked])]
    assert "Short of them: home en seo 63." in "\n".join(lighthouse_section(result))


def test_only_the_lighthouse_section_is_replaced():
    old = f"# Performance\n\n## Load\nfigures\n\n{LIGHTHOUSE_TITLE}\nold\n\n## Later\nkept\n"
    new = replace_section(old, LIGHTHOUSE_TITLE, [LIGHTHOUSE_TITLE, "new", ""])
    assert new == f"# Performance\n\n## Load\nfigures\n\n{LIGHTHOUSE_TITLE}\nnew\n\n## Later\nkept\n"
    added = replace_section("# Performance\n", LIGHTHOUSE_TITLE, [LIGHTHOUSE_TITLE])
    assert added.endswith(f"\n\n{LIGHTHOUSE_TITLE}\n")


NO_NAVSTART = (
    "lighthouse failed on http://127.0.0.1:54829/fr/course/ (1):\nRuntime error encountered: Something went wrong"
    " with recording the trace over your page load. Please run Lighthouse again. (NO_NAVSTART)"
)  # as Lighthouse 12.2.3 ended a `make bench` run


def failing_then_passing(failures: list[Exception]):
    calls = []

    def run_once(url, folder, cookie=""):
        calls.append(url)
        if failures:
            raise failures.pop(0)
        return {"scores": {}, "metrics": {}, "failing": {}}

    return run_once, calls


def test_a_run_lighthouse_asks_to_repeat_is_repeated(monkeypatch, tmp_path):
    run_once, calls = failing_then_passing([RuntimeError(NO_NAVSTART), RuntimeError(NO_NAVSTART)])
    monkeypatch.setattr(lighthouse, "lighthouse_once", run_once)
    assert lighthouse.lighthouse("http://site/fr/course/", tmp_path)["failing"] == {}
    assert len(calls) == lighthouse.ATTEMPTS


def test_lighthouse_is_not_repeated_past_its_attempts_nor_for_other_errors(monkeypatch, tmp_path):
    run_once, calls = failing_then_passing([RuntimeError(NO_NAVSTART)] * lighthouse.ATTEMPTS)
    monkeypatch.setattr(lighthouse, "lighthouse_once", run_once)
    with pytest.raises(RuntimeError, match="NO_NAVSTART"):
        lighthouse.lighthouse("http://site/fr/course/", tmp_path)
    assert len(calls) == lighthouse.ATTEMPTS

    run_once, calls = failing_then_passing([RuntimeError("/fr/course/ answered 500")])
    monkeypatch.setattr(lighthouse, "lighthouse_once", run_once)
    with pytest.raises(RuntimeError, match="answered 500"):
        lighthouse.lighthouse("http://site/fr/course/", tmp_path)
    assert len(calls) == 1


def test_the_section_says_what_the_measured_site_held():
    result = {
        "settings": {"runs": 1},
        "lighthouse": "12.2.3",
        "chromium": "Chromium 1",
        "pages": [row("home", "en", [summarize(lighthouse_report(0.99))])],
        "machine": MACHINE,
        "site": {"state_from": "/srv/var", "narration": {"pages": 21, "recorded": 21}, "reference_runs": 3},
    }
    text = "\n".join(lighthouse_section(result))
    assert "narration recorded for 21 of 21 guide pages, and 3 trained reference runs" in text


def test_every_guide_and_every_kind_of_page_is_measured_with_the_dashboard_signed_in():
    seed = {
        "home_path": "/en/",
        "course_path": "/en/course/",
        "guide_index_path": "/en/guides/",
        "guide_paths": ["/en/guides/a/", "/en/guides/b/"],
        "quiz_path": "/en/quizzes/a/",
        "preset_path": "/en/labs/presets/p/",
        "verify_path": "/en/certificates/verify/",
        "certificate_path": "/en/certificates/GA-1/",
        "reference_run_path": "/en/labs/runs/7/",
        "compare_path": "/en/labs/compare/?run=7&run=8",
        "dashboard_path": "/en/accounts/dashboard/",
    }
    pages = lighthouse.page_paths(seed)
    assert pages["guide a"] == "/en/guides/a/" and pages["guide b"] == "/en/guides/b/"
    expected = {"home", "course overview", "quiz landing", "lab preset", "certificate verify", "certificate"}
    assert expected | {"run page", "compare", "dashboard"} <= set(pages)
    assert lighthouse.SIGNED_IN == {"dashboard"}
