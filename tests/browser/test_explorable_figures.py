"""Explorable figures in Chromium: on a guide page in each language a visitor predicts or asks to
just see, moves the figure's control and sees another figure drawn from the stored reference sweep
(trained by the worker's own function), with JavaScript and without; a choice with no reference
result says so and links the preset; a learner's prediction is kept and shown on the dashboard."""

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from config.celery import app
from labs.execution import lab_run_execute
from labs.models import FigurePrediction, LabRun
from labs.presets import PRESETS
from labs.reference import reference_sweep_submit
from tests.browser.settled import click_when_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GUIDE = "normalization-and-accumulation"
FIG = "batchnorm-n-sweep-loss"  # trained below
UNTRAINED = "layernorm-n-sweep-loss"  # on the same page, with no reference sweep


@pytest.fixture
def batchnorm_reference(settings, course_site):
    """The preset's reference sweep, trained by the function the Celery task calls (2 steps each)."""
    settings.LAB_PRESET_MAX_STEPS = 2
    for run in reference_sweep_submit(preset=PRESETS["batchnorm-n-sweep"]):
        lab_run_execute(run_id=run.pk, worker="reference-worker")
    app.control.purge()  # their messages, sent at commit, have nothing left to do
    assert set(LabRun.objects.filter(reference=True).values_list("status", flat=True)) == {"succeeded"}


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_visitor_moves_the_control_and_sees_another_reference_figure_in_each_language(
    new_page, live_server, batchnorm_reference, javascript, screenshot
):
    for language in ("en", "hi", "fr"):
        page = new_page(java_script_enabled=javascript)
        page.goto(f"{live_server.url}/{language}/guides/{GUIDE}/")
        panel = page.locator(f"#explore-{FIG}")
        expect(panel.locator("fieldset input[type=radio]")).to_have_count(4)  # 3 runs and "about the same"
        expect(panel.locator("svg")).to_have_count(0)  # nothing shown before predicting
        page.evaluate("window.samePage = true")  # with JavaScript, htmx swaps the panel: no page load
        click_when_settled(panel.locator(".explorable-skip"), javascript=javascript)
        expect(panel.locator(f"#figure-{FIG} svg polyline")).to_have_count(3)  # every run
        page.wait_for_url(re.compile(f"predict-{FIG}=skip"))
        panel.locator("select").select_option("N16")
        if not javascript:
            click_when_settled(panel.locator(".explorable-control button"), javascript=False)
        chosen = panel.locator(f"#explore-{FIG}-chosen")
        expect(chosen.locator("svg polyline")).to_have_count(2)  # N = 16 beside N = 1
        expect(chosen.locator("figcaption")).to_contain_text("N = 16")
        expect(panel.locator(f"#figure-{FIG}")).to_have_count(0)
        page.wait_for_url(re.compile(f"fig-{FIG}=N16"))  # the address to share
        assert f"/{language}/guides/{GUIDE}/" in page.url
        assert page.evaluate("window.samePage === true") is javascript
        with translation.override(language):  # the catalog's words, as a reader may reword them
            caption = gettext("The reference run %(label)s beside %(first)s.") % {"label": "N = 16", "first": "N = 1"}
        assert language == "en" or caption != "The reference run N = 16 beside N = 1."  # translated
        expect(chosen.locator("figcaption")).to_contain_text(caption)
        screenshot(page, f"explorable-{language}-{'js' if javascript else 'no-js'}")

        shared = new_page(java_script_enabled=javascript)  # the shared address shows the same figure
        shared.goto(page.url)
        expect(shared.locator(f"#explore-{FIG}-chosen svg polyline")).to_have_count(2)


def test_a_choice_without_a_reference_result_says_so_and_links_the_preset(new_page, live_server, batchnorm_reference):
    page = new_page()
    page.goto(f"{live_server.url}/en/guides/{GUIDE}/")
    panel = page.locator(f"#explore-{UNTRAINED}")  # no sweep: nothing to predict, the control at once
    panel.locator("select").select_option("N4")
    missing = panel.locator(".explorable-missing")
    expect(missing).to_contain_text("There is no reference result for N = 4 yet, and nothing is trained")
    click_when_settled(missing.get_by_role("link", name="LayerNorm at N = 1, 4 and 16"))
    page.wait_for_url("**/en/labs/presets/layernorm-n-sweep/")
    assert LabRun.objects.filter(preset="layernorm-n-sweep").count() == 0  # nothing trained


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_learners_prediction_is_compared_kept_and_on_the_dashboard(
    new_page, live_server, learner, batchnorm_reference, javascript
):
    page = new_page(user=learner, java_script_enabled=javascript)
    page.goto(f"{live_server.url}/en/guides/{GUIDE}/")
    panel = page.locator(f"#explore-{FIG}")
    panel.get_by_label("N = 16").check()
    page.evaluate("window.samePage = true")
    click_when_settled(panel.locator(".explorable-predict button"), javascript=javascript)
    verdict = panel.locator(".explorable-verdict")
    expect(verdict).to_contain_text("You predicted: N = 16.")
    expect(panel.locator(f"#figure-{FIG} svg")).to_have_count(1)
    assert page.evaluate("window.samePage === true") is javascript  # htmx, or the form's own POST
    prediction = FigurePrediction.objects.get(user=learner)
    assert prediction.predicted == "N16" and prediction.answer  # what the trained runs bore out
    page.goto(f"{live_server.url}/en/accounts/dashboard/")
    row = page.locator("tr[data-prediction]")
    expect(row).to_contain_text("BatchNorm at N = 1, 4 and 16")
    expect(row).to_contain_text("N = 16")
    page.goto(f"{live_server.url}/en/guides/{GUIDE}/")  # kept: the figure shows with the verdict
    expect(page.locator(f"#explore-{FIG} .explorable-verdict")).to_contain_text("You predicted: N = 16.")
