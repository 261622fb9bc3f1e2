"""The run and compare pages draw their runs' loss curves as SVG on the server (labs/figures.py,
runs_chart), as the controls' GET form chooses: x axis, log scale, smoothing, validation markers,
line styles. Odd query values fall back to the defaults; a live page's poll brings a fresh drawing."""

import pytest
from django.http import QueryDict
from django.urls import reverse

from labs.charts import SMOOTH_MAX, CurveView, curve_view, smoothed
from labs.models import LabRun
from tests.lab_charts import dashes, drawing, lines, marks, texts, y_label

CHECKS = [{"step": 1, "loss": 1.5, "accuracy": 0.4}, {"step": 3, "loss": 0.75, "accuracy": 0.5}]


@pytest.fixture
def finished(learner, make_run):
    """A finished run of three steps (loss 2/step) with two validation checks."""
    return make_run(learner, status=LabRun.Status.SUCCEEDED, validation=CHECKS)


def run_chart(client, run, query: str = ""):
    response = client.get(reverse("labs:run", args=[run.pk]) + query)
    assert response.status_code == 200
    return drawing(response.content.decode())


def test_the_run_page_draws_its_curve_and_validation_checks_without_any_script(learner_client, finished):
    html = learner_client.get(reverse("labs:run", args=[finished.pk])).content.decode()
    svg = drawing(html)
    assert svg.get("role") == "img" and svg.get("aria-labelledby") == "lab-curves-svg-title lab-curves-svg-desc"
    assert svg.find("{http://www.w3.org/2000/svg}title").text == "Training and validation loss of this run"
    desc = svg.find("{http://www.w3.org/2000/svg}desc").text
    assert finished.label in desc and "Last training loss" in desc and ": 0.666" in desc  # 2/3, the last step
    (line,) = lines(svg)
    assert len(line) == 3
    (checks,) = marks(svg)
    assert len(checks) == 2
    # A check sits at its step on the training curve's x: step 3 is the curve's last point.
    assert checks[1][1][0] == line[2][0]
    assert "<canvas" not in html and "chart.umd" not in html and "labs.js" not in html
    assert f'href="/en/labs/compare/curves.csv?run={finished.share_ref}"' in html  # the numbers, to download


def test_the_log_scale_puts_the_loss_on_powers_of_ten(learner_client, finished):
    linear, log = run_chart(learner_client, finished), run_chart(learner_client, finished, "?y=log")
    assert y_label(linear) == "loss" and y_label(log) == "loss (logarithmic)"
    assert {"0.1", "1", "10"} <= set(texts(log)) and "10" not in texts(linear)
    assert lines(log) != lines(linear)


def test_smoothing_pulls_the_curve_toward_its_moving_average(learner_client, finished):
    plain = lines(run_chart(learner_client, finished))[0]
    smooth = lines(run_chart(learner_client, finished, "?smooth=0.8"))[0]
    assert smooth[0] == plain[0]  # corrected for its start: the first point is the first loss
    # The loss falls (2, 1, 0.67): the average lags above it, higher on the page (a smaller y).
    assert smooth[2][1] < plain[2][1] and smooth[1][1] < plain[1][1]


def test_validation_markers_can_be_hidden(learner_client, finished):
    hidden = run_chart(learner_client, finished, "?validation=hidden")
    assert marks(hidden) == [] and y_label(hidden) == "training loss"
    assert hidden.find("{http://www.w3.org/2000/svg}title").text == "Training loss of this run"
    assert len(lines(hidden)[0]) == 3


def test_compared_runs_differ_by_dash_and_marker_shape_unless_lines_are_solid(learner_client, learner, make_run):
    runs = [make_run(learner, status=LabRun.Status.SUCCEEDED, validation=CHECKS, config={"seed": s}) for s in range(3)]
    url = reverse("labs:compare") + "?" + "&".join(f"run={run.pk}" for run in runs)
    styled = drawing(learner_client.get(url).content.decode())
    assert len(lines(styled)) == 3 and len(set(dashes(styled))) == 3
    shapes = [{shape for shape, _centre in group} for group in marks(styled)]
    assert len(shapes) == 3 and all(len(group) == 1 for group in shapes) and len(set.union(*shapes)) == 3
    solid = drawing(learner_client.get(url + "&lines=solid").content.decode())
    assert dashes(solid) == [None, None, None]
    assert {shape for group in marks(solid) for shape, _centre in group} == {"circle"}


def test_the_x_axis_follows_the_choice(learner_client, finished):
    by_step = run_chart(learner_client, finished)
    by_samples = run_chart(learner_client, finished, "?x=samples")
    assert "optimizer step" in texts(by_step) and "samples seen" in texts(by_samples)
    assert "3" in texts(by_step) and "50" in texts(by_samples)  # 16 samples a step: 48 after 3 steps
    assert "seconds" in texts(run_chart(learner_client, finished, "?x=seconds"))
    # The check at step 3 sits at the samples of the curve's step 3, its last point.
    assert marks(by_samples)[0][1][1][0] == lines(by_samples)[0][2][0]


def test_a_run_without_validation_checks_has_no_markers(learner_client, learner, make_run, finished):
    bare = make_run(learner, status=LabRun.Status.SUCCEEDED)  # no validation stored: an empty list
    url = reverse("labs:compare") + f"?run={finished.pk}&run={bare.pk}"
    svg = drawing(learner_client.get(url).content.decode())
    assert len(lines(svg)) == 2 and [len(group) for group in marks(svg)] == [2]
    html = learner_client.get(reverse("labs:run", args=[bare.pk])).content.decode()
    # Its title and caption name no validation loss: there is none to draw.
    assert drawing(html).find("{http://www.w3.org/2000/svg}title").text == "Training loss of this run"
    assert '<figcaption class="muted">Training loss per optimizer step</figcaption>' in html


@pytest.mark.parametrize(
    "query",
    [
        "?y=cubic",
        "?x=epoch",
        "?smooth=lots",
        "?smooth=nan",
        "?smooth=inf",
        "?smooth=-1e999",
        "?validation=maybe",
        "?lines=zigzag",
        "?x=&y=&smooth=&validation=&lines=",
        "?smooth=0.5&smooth=%00",
    ],
)
def test_odd_query_values_draw_the_default_chart(learner_client, finished, query):
    run_page = reverse("labs:run", args=[finished.pk]) + query
    compare_page = reverse("labs:compare") + f"?run={finished.pk}&" + query[1:]
    for url in (run_page, compare_page):
        response = learner_client.get(url)
        assert response.status_code == 200
        html = response.content.decode()
        assert lines(drawing(html)) == lines(run_chart(learner_client, finished))
        assert '<option value="step" selected>' in html and '<option value="linear" selected>' in html
        assert 'name="smooth" min="0" max="0.95" step="0.05" value="0"' in html


def test_the_form_sends_its_choices_as_a_plain_get_request(learner_client, finished):
    query = "?x=seconds&y=log&smooth=0.5&validation=hidden&lines=solid"
    html = learner_client.get(reverse("labs:run", args=[finished.pk]) + query).content.decode()
    action = reverse("labs:run", args=[finished.pk])
    assert f'<form class="lab-controls" method="get" action="{action}">' in html
    for selected in ("seconds", "log", "hidden", "solid"):
        assert f'<option value="{selected}" selected>' in html
    assert 'name="smooth" min="0" max="0.95" step="0.05" value="0.5"' in html
    assert 'name="run"' not in html  # the run page's form names no run: the page is the run
    # The link to the compare page keeps the view.
    assert "x=seconds&amp;y=log&amp;smooth=0.5&amp;validation=hidden&amp;lines=solid" in html


def test_smoothing_is_brought_to_the_controls_range_and_steps():
    def smooth(value: str) -> float:
        return curve_view(QueryDict(f"smooth={value}")).smooth

    assert smooth("0.33") == 0.35 and smooth("0.3") == 0.3 and smooth("7") == SMOOTH_MAX
    assert smooth("-0.5") == 0.0 and smooth("nan") == 0.0 and smooth("1e999") == 0.0
    assert curve_view(QueryDict()) == CurveView(validation=True, points=curve_view(QueryDict()).points)


def test_the_moving_average_is_corrected_for_its_start_and_skips_missing_losses():
    assert smoothed([2.0, 2.0, 2.0], 0.9) == pytest.approx([2.0, 2.0, 2.0])  # no pull toward zero
    first, gap, third = smoothed([1.0, None, 3.0], 0.5)
    assert gap is None and first == pytest.approx(1.0) and third == pytest.approx((0.25 + 1.5) / 0.75)
    assert smoothed([1.0, float("inf")], 0.5)[1] == float("inf")  # a diverged loss stays a break


def test_a_running_runs_poll_brings_a_fresh_chart_in_the_chosen_view(learner_client, learner, make_run):
    curve = [{"step": s, "loss": 2.0 / s, "samples": 16 * s, "seconds": 0.1 * s} for s in (1, 2)]
    run = make_run(learner, status=LabRun.Status.RUNNING, done_steps=0, curve=curve)
    page = learner_client.get(reverse("labs:run", args=[run.pk]) + "?y=log").content.decode()
    poll_url = (
        reverse("labs:run", args=[run.pk]) + "?x=step&amp;y=log&amp;smooth=0&amp;validation=shown&amp;lines=styled"
    )
    assert f'data-hx-get="{poll_url}"' in page
    fragment = learner_client.get(poll_url.replace("&amp;", "&"), headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in fragment and 'id="lab-run-status"' in fragment
    assert 'id="lab-curves" data-hx-swap-oob="true"' in fragment
    svg = drawing(fragment)
    assert y_label(svg) == "training loss (logarithmic)" and len(lines(svg)[0]) == 2


@pytest.mark.parametrize("live", ["&live=1", ""])  # the compare page's poll, the preset page's
def test_a_comparisons_poll_brings_a_fresh_chart(learner_client, learner, make_run, live):
    run = make_run(learner, status=LabRun.Status.RUNNING)
    url = reverse("labs:compare") + f"?run={run.pk}&y=log{live}"
    fragment = learner_client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert 'id="lab-results"' in fragment and 'id="lab-curves" data-hx-swap-oob="true"' in fragment
    assert y_label(drawing(fragment)) == "training loss (logarithmic)"


def test_the_preset_page_draws_the_learners_own_sweep(learner_client, learner, make_run):
    make_run(learner, status=LabRun.Status.SUCCEEDED, preset="layernorm-n-sweep", validation=CHECKS)
    html = learner_client.get(reverse("labs:preset", args=["layernorm-n-sweep"])).content.decode()
    svg = drawing(html)
    assert len(lines(svg)) == 1 and len(marks(svg)) == 1
    assert f'action="{reverse("labs:compare")}"' in html  # its controls open the compare page
