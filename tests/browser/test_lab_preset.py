"""A learner runs a preset in Chromium and sees the live chart and the comparison."""

import re

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests.lab_charts import drawing, lines, marks, texts, y_label

pytestmark = pytest.mark.browser


@pytest.fixture
def browser_page(browser, live_server, learner):
    """A page of the shared Chromium, logged in as the learner (the session cookie of a test client)."""
    client = Client()
    client.force_login(learner)
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    page.errors = []
    page.on("console", lambda message: message.type == "error" and page.errors.append(message.text))
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    yield page
    context.close()


def test_a_learner_runs_a_preset_and_sees_the_chart_and_the_comparison(
    browser_page, live_server, celery_worker, settings
):
    settings.LAB_PRESET_MAX_STEPS = 4  # three runs of four steps keep the test quick on a CPU
    page = browser_page
    page.goto(f"{live_server.url}/en/labs/presets/layernorm-n-sweep/")
    expect(page.get_by_text("What to look for")).to_be_visible()
    page.get_by_role("button", name="Run this preset").click()

    expect(page).to_have_url(re.compile(r"/en/labs/compare/\?run=\d+&run=\d+&run=\d+$"))
    results = page.locator("#lab-results")
    expect(results.locator("tbody tr")).to_have_count(3)
    try:
        expect(results.locator(".lab-status-succeeded")).to_have_count(3, timeout=180_000)  # htmx polling
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nworker log:\n{celery_worker.log_path.read_text()[-4000:]}") from None

    # The chart followed the runs: each poll brought a fresh drawing from the server (out of band).
    svg = drawing(page.locator("#lab-curves").inner_html())
    assert [len(line) for line in lines(svg)] == [4, 4, 4]
    assert [t for t in texts(svg) if t.startswith("N = ")] == ["N = 1", "N = 4", "N = 16"]  # the legend
    assert len(marks(svg)) == 3  # each run's validation loss
    expect(results.locator("tbody tr").first).to_contain_text("layer")
    expect(results).not_to_have_attribute("data-hx-trigger", "every 1s")  # polling stopped when the runs ended

    page.select_option("#lab-y", "log")
    page.select_option("#lab-x", "samples")
    with page.expect_navigation():
        page.get_by_role("button", name="Apply", exact=True).click()
    svg = drawing(page.locator("#lab-curves").inner_html())
    assert y_label(svg) == "loss (logarithmic)" and "samples seen" in texts(svg)
    expect(page.locator("#lab-share-url")).to_have_value(re.compile(r"x=samples&y=log"))
    assert "y=log" in page.url
    assert page.errors == []  # no script errors and no Content-Security-Policy violations
