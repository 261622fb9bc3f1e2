"""The lab charts in Chromium, from stored runs (no worker needed): runs differ by line style and
marker as well as colour, validation loss is drawn beside training loss, and the run page has the
compare page's controls, a logarithmic scale among them."""

import pytest
from playwright.sync_api import expect

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
DATASETS = """() => Chart.getChart(document.querySelector('canvas[data-lab-chart]')).data.datasets.map(d => ({
    label: d.label, points: d.data.length, dash: JSON.stringify(d.borderDash), marker: d.pointStyle,
    color: d.borderColor }))"""


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


def test_compared_runs_differ_by_line_style_and_marker_and_show_validation(
    new_page, live_server, learner, runs, screenshot
):
    page = new_page(user=learner)
    page.goto(f"{live_server.url}/en/labs/compare/?" + "&".join(f"run={run.pk}" for run in runs))
    page.wait_for_function("window.Chart && Chart.getChart(document.querySelector('canvas[data-lab-chart]'))")
    drawn = page.evaluate(DATASETS)
    training = [d for d in drawn if not d["label"].endswith("· validation")]
    validation = [d for d in drawn if d["label"].endswith("· validation")]
    assert [d["points"] for d in training] == [6, 6, 6]
    assert [d["points"] for d in validation] == [2, 2, 2]
    assert len({d["dash"] for d in training}) == 3  # three line styles
    assert len({d["marker"] for d in training}) == 3  # three markers
    assert len({d["color"] for d in training}) == 3
    for line, check in zip(training, validation, strict=True):  # a run's validation keeps its colour and marker
        assert (check["color"], check["marker"]) == (line["color"], line["marker"])
    expect(page.locator("canvas[data-lab-chart]")).to_have_attribute("data-validation-series", "3")
    screenshot(page, "lab-compare-line-styles-en")


def test_the_run_page_switches_to_a_log_scale_and_keeps_it_in_its_link(
    new_page, live_server, learner, runs, screenshot
):
    page = new_page(user=learner)
    page.goto(f"{live_server.url}/en/labs/runs/{runs[0].pk}/")
    page.wait_for_function("window.Chart && Chart.getChart(document.querySelector('canvas[data-lab-chart]'))")
    assert [d["points"] for d in page.evaluate(DATASETS)] == [6, 2]  # training and validation
    page.select_option("#lab-y", "log")
    scale = page.evaluate("Chart.getChart(document.querySelector('canvas[data-lab-chart]')).options.scales.y.type")
    assert scale == "logarithmic"
    assert page.url.endswith(f"/en/labs/runs/{runs[0].pk}/?x=step&y=log&smooth=0")
    page.reload()  # the link keeps the view, drawn that way from the start
    expect(page.locator("#lab-y")).to_have_value("log")
    page.wait_for_function("window.Chart && Chart.getChart(document.querySelector('canvas[data-lab-chart]'))")
    scale = page.evaluate("Chart.getChart(document.querySelector('canvas[data-lab-chart]')).options.scales.y.type")
    assert scale == "logarithmic"
    screenshot(page, "lab-run-log-scale-en")
