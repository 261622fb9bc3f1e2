"""A learner runs a preset in Chromium and sees the live chart and the comparison."""

import re

import pytest
from django.test import Client
from playwright.sync_api import expect, sync_playwright

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture
def browser_page(monkeypatch, settings, live_server, learner):
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # Playwright's sync API runs an event loop
    # The live server finds static files by their source names; after collectstatic the manifest
    # storage would hand out hashed names it cannot find.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    client = Client()
    client.force_login(learner)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        context = browser.new_context()
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
        page = context.new_page()
        page.errors = []
        page.on("console", lambda message: message.type == "error" and page.errors.append(message.text))
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        yield page
        browser.close()


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

    canvas = page.locator("canvas[data-lab-chart]")
    expect(canvas).to_have_attribute("data-series", "3")
    expect(canvas).to_have_attribute("data-points", "12")
    drawn = page.evaluate(
        "() => Chart.getChart(document.querySelector('canvas[data-lab-chart]')).data.datasets"
        ".map(d => [d.label, d.data.length])"
    )
    assert drawn == [["N = 1", 4], ["N = 4", 4], ["N = 16", 4]]
    expect(results.locator("tbody tr").first).to_contain_text("layer")
    expect(results).not_to_have_attribute("hx-trigger", "every 1s")  # polling stopped when the runs ended

    page.select_option("#lab-y", "log")
    page.select_option("#lab-x", "samples")
    scale = page.evaluate(
        "() => Chart.getChart(document.querySelector('canvas[data-lab-chart]')).options.scales.y.type"
    )
    assert scale == "logarithmic"
    expect(page.locator("[data-lab-share]")).to_have_value(re.compile(r"x=samples&y=log"))
    assert "y=log" in page.url
    assert page.errors == []  # no script errors and no Content-Security-Policy violations
