"""A visitor reads a guide's figure, drawn from a reference sweep the worker's code trained; a
learner then runs the preset, waits in the queue with no worker, and sees the runs finish beside
the reference once a worker starts."""

import pytest
from playwright.sync_api import expect

from config.celery import app
from labs.execution import lab_run_execute
from labs.models import LabRun
from labs.presets import PRESETS
from labs.reference import reference_sweep_submit
from tests.browser.settled import click_when_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PRESET = "layernorm-n-sweep"
GUIDE = "future-and-checklist"  # its "What to measure" section shows this preset's loss curves


def train_reference_sweep(settings) -> list[LabRun]:
    """The reference sweep, trained by the very function the Celery task calls (tiny: 2 steps)."""
    settings.LAB_PRESET_MAX_STEPS = 2
    runs = reference_sweep_submit(preset=PRESETS[PRESET])
    for run in runs:
        lab_run_execute(run_id=run.pk, worker="reference-worker")
    app.control.purge()  # their messages, sent at commit, have nothing left to do
    assert set(LabRun.objects.filter(reference=True).values_list("status", flat=True)) == {"succeeded"}
    return runs


def test_a_guide_shows_its_figure_and_a_learners_sweep_finishes_beside_the_reference(
    new_page, live_server, learner, make_worker, settings, screenshot
):
    from course.services import guides_sync

    guides_sync()
    reference = train_reference_sweep(settings)

    visitor = new_page()
    visitor.goto(f"{live_server.url}/en/guides/{GUIDE}/")
    click_when_settled(visitor.locator(f"#explore-{PRESET}-loss .explorable-skip"))  # no prediction: just show it
    figure = visitor.locator(f"#figure-{PRESET}-loss")
    expect(figure.locator("svg[role='img'] title")).to_have_text("LayerNorm at N = 1, 4 and 16")
    expect(figure.locator("svg polyline")).to_have_count(3)
    expect(figure.locator("figcaption")).to_contain_text("the curves lie on top of each other")
    expect(figure.locator("figcaption")).to_contain_text(reference[0].code_version)
    table = figure.locator("details table")
    expect(table).to_be_hidden()
    click_when_settled(figure.locator("summary"))
    expect(table.locator("tbody tr")).to_have_count(2)  # steps 1 and 2
    figure.scroll_into_view_if_needed()
    screenshot(visitor, "guide-figure-en")

    click_when_settled(figure.get_by_role("link", name="LayerNorm at N = 1, 4 and 16"))
    expect(visitor.get_by_role("heading", name="Reference results")).to_be_visible()
    expect(visitor.locator("figure.guide-figure svg")).to_have_count(1)
    expect(visitor.locator("tr[data-reference-run]")).to_have_count(3)

    settings.LAB_PRESET_MAX_STEPS = 3  # other settings than the reference's: this sweep trains
    page = new_page(user=learner)
    page.goto(f"{live_server.url}/en/labs/presets/{PRESET}/")
    page.get_by_role("button", name="Run this preset").click()
    page.wait_for_url("**/en/labs/compare/**")
    expect(page.locator("#lab-queue")).to_contain_text("No worker is connected right now.")
    first = LabRun.objects.filter(reference=False).order_by("preset_index").first()
    page.goto(f"{live_server.url}/en/labs/runs/{first.pk}/")
    expect(page.locator(".lab-queue-position")).to_contain_text("Position 1 of 3 in the queue.")

    make_worker("worker").start()
    page.goto(f"{live_server.url}/en/labs/presets/{PRESET}/")
    results = page.locator("#lab-results")
    expect(results.locator(".lab-status-succeeded")).to_have_count(3, timeout=180_000)  # htmx polling
    expect(page.locator("tr[data-reference-run]")).to_have_count(3)  # the reference beside them
    screenshot(page, "preset-with-reference-en", full_page=True)
