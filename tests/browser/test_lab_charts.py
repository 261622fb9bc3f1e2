"""The lab charts in Chromium with JavaScript off, from stored runs (no worker needed): the run and
compare pages draw their curves as SVG on the server, and the controls' form, a plain GET request,
draws them again with a log scale, smoothing, validation markers hidden or solid lines."""

import re

import pytest
from playwright.sync_api import expect

from tests.lab_charts import dashes, drawing, lines, marks, y_label

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CONFIG = {
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 16,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 6,
    "seed": 0,
}


@pytest.fixture
def runs(learner, helpers):
    from labs.models import LabRun

    made = []
    for n in (1, 2, 4):
        run = helpers.finished_run(learner, {**CONFIG, "accumulation_steps": n}, loss=2.0 + n)
        checks = [{"step": s, "loss": 1.0 / s, "accuracy": 0.5} for s in (3, 6)]
        LabRun.objects.filter(pk=run.pk).update(validation=checks)
        made.append(run)
    return made


def shown(page):
    """The chart the page shows now, as SVG elements."""
    return drawing(page.locator("#lab-curves").inner_html())


def apply(page, **choices: str) -> None:
    """Sets the controls and sends their form: a page load, with JavaScript off."""
    for name, value in choices.items():
        if name == "smooth":
            page.fill("#lab-smooth", value)
        else:
            page.select_option(f"#lab-{name}", value)
    with page.expect_navigation():
        page.get_by_role("button", name="Apply", exact=True).click()


def test_without_javascript_the_compare_page_draws_every_run_and_its_controls_redraw_it(
    new_page, live_server, learner, runs, screenshot
):
    page = new_page(user=learner, java_script_enabled=False)
    page.goto(f"{live_server.url}/en/labs/compare/?" + "&".join(f"run={run.pk}" for run in runs))
    chart = page.locator("#lab-curves svg")
    expect(chart).to_be_visible()
    # Named by its title, then described (aria-labelledby: the title and the description).
    expect(chart).to_have_accessible_name(re.compile(r"^Training and validation loss of the compared runs "))
    svg = shown(page)
    assert [len(line) for line in lines(svg)] == [6, 6, 6]
    assert len(set(dashes(svg))) == 3  # three line styles
    checks = marks(svg)
    assert [len(group) for group in checks] == [2, 2, 2]  # each run's validation loss at steps 3 and 6
    assert len({group[0][0] for group in checks}) == 3  # three marker shapes
    screenshot(page, "lab-compare-no-js-en")

    apply(page, y="log")
    assert re.search(r"[?&]y=log(&|$)", page.url)
    log = shown(page)
    assert y_label(log) == "loss (logarithmic)" and lines(log) != lines(svg)

    apply(page, smooth="0.8")
    smooth = shown(page)
    assert lines(smooth)[0][0] == lines(log)[0][0] and lines(smooth)[0][-1] != lines(log)[0][-1]
    expect(page.locator("#lab-y")).to_have_value("log")  # the other choices stay as they were

    apply(page, validation="hidden", lines="solid")
    plain = shown(page)
    assert marks(plain) == [] and y_label(plain) == "training loss (logarithmic)"
    assert dashes(plain) == [None, None, None]
    expect(page.locator("#lab-share-url")).to_have_value(re.compile(r"y=log&smooth=0.8&validation=hidden&lines=solid"))
    screenshot(page, "lab-compare-no-js-log-smooth-en")


def test_without_javascript_the_run_page_draws_its_curve_and_keeps_the_view_in_its_link(
    new_page, live_server, learner, runs, screenshot
):
    page = new_page(user=learner, java_script_enabled=False)
    page.goto(f"{live_server.url}/en/labs/runs/{runs[0].pk}/")
    expect(page.locator("canvas")).to_have_count(0)
    svg = shown(page)
    assert [len(line) for line in lines(svg)] == [6] and [len(group) for group in marks(svg)] == [2]

    apply(page, y="log", x="samples")
    assert page.url.endswith(f"/en/labs/runs/{runs[0].pk}/?x=samples&y=log&smooth=0&validation=shown&lines=styled")
    log = shown(page)
    assert y_label(log) == "loss (logarithmic)" and lines(log) != lines(svg)
    page.reload()  # the link keeps the view, drawn that way from the start
    expect(page.locator("#lab-y")).to_have_value("log")
    assert lines(shown(page)) == lines(log)
    compare = page.get_by_role("link", name="Open in the compare page")
    expect(compare).to_have_attribute("href", re.compile(r"x=samples&y=log"))
    screenshot(page, "lab-run-no-js-log-scale-en")
