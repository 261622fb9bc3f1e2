"""Explorable figures and "predict, then see" (labs/explorable_figures.py), on
guide pages and as htmx fragments, from reference sweeps stored as the worker stores them."""

import html

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from labs import explorable_figures
from labs.models import FigurePrediction
from labs.presets import PRESETS

GUIDE = "/{language}/guides/normalization-and-accumulation/"
FIG = "batchnorm-n-sweep-loss"


def test_each_preset_of_a_guide_figure_offers_one_choice_per_run_named_by_what_it_varies():
    assert [c.slug for c in explorable_figures.choices(PRESETS["batchnorm-n-sweep"])] == ["N1", "N4", "N16"]
    assert [c.slug for c in explorable_figures.choices(PRESETS["forgot-divide-sgd"])] == ["mean", "sum"]
    assert [c.slug for c in explorable_figures.choices(PRESETS["data-parallel-no-sync"])] == [
        "G1-nosync-N4",
        "G2-nosync-N2",
        "G2-everymicro-N2",
    ]
    assert [c.slug for c in explorable_figures.choices(PRESETS["transformer-lm-n-norm"])][:2] == [
        "layer-N1",
        "layer-N4",
    ]
    for preset, _name in explorable_figures.FIGURES:
        slugs = [c.slug for c in explorable_figures.choices(PRESETS[preset])]
        assert len(set(slugs)) == len(PRESETS[preset].runs), preset  # every run can be chosen


def test_the_answer_is_the_reference_runs_own_result(reference_sweep):
    runs = reference_sweep("batchnorm-n-sweep")  # final losses 2/steps + 0.01 × index: N = 1 lowest
    asked = explorable_figures.question("batchnorm-n-sweep", "loss")
    assert explorable_figures.reference_answer(PRESETS["batchnorm-n-sweep"], asked, runs) == "N1"
    for run in runs:
        run.metrics["final_loss"] = 0.5 + run.preset_index * 1e-4  # within 1 %: about the same
    assert explorable_figures.reference_answer(PRESETS["batchnorm-n-sweep"], asked, runs) == explorable_figures.SAME
    memory = explorable_figures.question("memory-vs-n", "memory")
    assert explorable_figures.reference_answer(PRESETS["memory-vs-n"], memory, reference_sweep("memory-vs-n")) == "N8"


def test_the_url_keeps_other_figures_state_and_replaces_this_ones():
    url = explorable_figures.url_with_state("/en/guides/x/?fig-a-loss=N4&predict-b-loss=N1", "b-loss", "N16", "")
    assert url == "/en/guides/x/?fig-a-loss=N4&fig-b-loss=N16"
    assert explorable_figures.url_with_state("https://evil.example/", "b-loss", "N1", "") is None


@pytest.mark.django_db
def test_a_guide_page_asks_for_a_prediction_before_showing_the_figure(client, synced_content, reference_sweep):
    reference_sweep("batchnorm-n-sweep")
    page = html.unescape(client.get(GUIDE.format(language="en")).content.decode())
    panel = page.split(f'id="explore-{FIG}"')[1].split("</section>")[0]
    assert "Which run will end with the lowest training loss?" in panel
    assert "<svg" not in panel and "Just show me" in panel
    assert f'name="predict-{FIG}" value="N16"' in panel and "csrfmiddlewaretoken" not in page  # cached page


@pytest.mark.django_db
def test_a_choice_in_the_query_string_is_drawn_into_the_page_in_each_language(client, synced_content, reference_sweep):
    runs = reference_sweep("batchnorm-n-sweep")
    default = client.get(GUIDE.format(language="en") + f"?fig-{FIG}=all").content.decode()
    chosen = client.get(GUIDE.format(language="en") + f"?fig-{FIG}=N16").content.decode()
    assert f'id="figure-{FIG}"' in default and f'id="explore-{FIG}-chosen"' not in default
    assert f'id="explore-{FIG}-chosen"' in chosen and f'id="figure-{FIG}"' not in chosen
    panel = html.unescape(chosen.split(f'id="explore-{FIG}-chosen"')[1].split("</figure>")[0])
    assert "The reference run N = 16 beside N = 1." in panel
    assert "gradient-equivalence error: 1.0e-05" in panel  # the N = 16 run's own number (index 2)
    assert '<option value="N16" selected>' in chosen
    assert runs[2].code_version in panel
    french = html.unescape(client.get(GUIDE.format(language="fr") + f"?fig-{FIG}=N4").content.decode())
    with translation.override("fr"):
        beside = gettext("The reference run %(label)s beside %(first)s.") % {"label": "N = 4", "first": "N = 1"}
    assert beside.startswith("L") and beside in french  # the catalog's French, read through gettext
    hindi = html.unescape(client.get(GUIDE.format(language="hi") + f"?fig-{FIG}=N4").content.decode())
    assert "N = 4" in hindi.split(f'id="explore-{FIG}-chosen"')[1]


@pytest.mark.django_db
def test_a_choice_without_reference_results_says_so_and_links_the_preset(client, synced_content):
    page = html.unescape(client.get(GUIDE.format(language="en") + f"?fig-{FIG}=N4").content.decode())
    assert "There is no reference result for N = 4 yet, and nothing is trained when you choose here." in page
    assert f'href="{reverse("labs:preset", args=["batchnorm-n-sweep"])}"' in page


@pytest.mark.django_db
def test_the_fragment_varies_on_htmx_and_pushes_the_pages_url(client, reference_sweep):
    reference_sweep("batchnorm-n-sweep")
    url = reverse("labs:explore", args=["batchnorm-n-sweep", "loss"])
    response = client.get(
        url,
        {f"fig-{FIG}": "N4"},
        headers={"HX-Request": "true", "HX-Current-URL": "http://testserver/en/guides/g/?fig-other-loss=N1"},
    )
    assert response.status_code == 200 and "HX-Request" in response.headers["Vary"]
    assert response.headers["HX-Push-Url"] == f"/en/guides/g/?fig-{FIG}=N4&fig-other-loss=N1"
    assert f'id="explore-{FIG}-chosen"' in response.content.decode()
    assert client.get(reverse("labs:explore", args=["batchnorm-n-sweep", "nope"])).status_code == 404
    unknown = client.get(url, {f"fig-{FIG}": "N3"}, headers={"HX-Request": "true"})
    assert unknown.status_code == 400 and "This figure has no run named" in html.unescape(unknown.content.decode())


@pytest.mark.django_db
def test_a_visitors_prediction_travels_in_the_url_and_is_compared(client, reference_sweep):
    reference_sweep("batchnorm-n-sweep")
    url = reverse("labs:explore", args=["batchnorm-n-sweep", "loss"])
    text = html.unescape(client.get(url, {f"predict-{FIG}": "N16"}).content.decode())
    assert "You predicted: N = 16." in text and "The reference runs: N = 1." in text and "Not this time" in text
    assert f'id="figure-{FIG}"' in text  # revealed: the guide's own figure
    assert FigurePrediction.objects.count() == 0
    post = client.post(reverse("labs:predict", args=["batchnorm-n-sweep", "loss"]), {"predicted": "N1"})
    assert post.status_code == 403 and FigurePrediction.objects.count() == 0


@pytest.mark.django_db
def test_a_learners_prediction_is_stored_and_shown_on_the_dashboard(learner_client, learner, reference_sweep):
    reference_sweep("batchnorm-n-sweep")
    url = reverse("labs:predict", args=["batchnorm-n-sweep", "loss"])
    assert learner_client.post(url, {"predicted": "N99"}).status_code == 400
    response = learner_client.post(url, {"predicted": "N1", "next": "/en/guides/normalization-and-accumulation/"})
    assert response.status_code == 302 and response["Location"].endswith(f"#explore-{FIG}")
    prediction = FigurePrediction.objects.get(user=learner)
    assert (prediction.predicted, prediction.answer, prediction.is_right) == ("N1", "N1", True)
    fragment = learner_client.post(url, {"predicted": "same"}, headers={"HX-Request": "true"})
    assert "You predicted: They end about the same." in html.unescape(fragment.content.decode())
    dashboard = html.unescape(learner_client.get(reverse("accounts:dashboard")).content.decode())
    row = dashboard.split("data-prediction")[1].split("</tr>")[0]
    assert "BatchNorm at N = 1, 4 and 16" in row and "They end about the same" in row and "Not this time" in row


@pytest.mark.django_db
def test_the_cached_article_never_carries_one_learners_prediction_to_another(
    client, learner_client, learner, synced_content, reference_sweep
):
    """The guide's article is a template fragment cached for everyone; its figures are drawn in per
    request after it, so a learner's stored prediction and form token stay theirs."""
    from tests import factories

    reference_sweep("batchnorm-n-sweep")
    learner_client.post(reverse("labs:predict", args=["batchnorm-n-sweep", "loss"]), {"predicted": "N1"})
    own = html.unescape(learner_client.get(GUIDE.format(language="en")).content.decode())
    assert "You predicted: N = 1." in own
    client.force_login(factories.other_account())
    other = html.unescape(client.get(GUIDE.format(language="en")).content.decode())
    assert "You predicted" not in other
    assert "Which run will end with the lowest training loss?" in other.split(f'id="explore-{FIG}"')[1]


@pytest.mark.django_db
def test_a_learners_cached_panel_shows_their_own_prediction_never_another_learners(
    client, learner_client, learner, synced_content, reference_sweep
):
    """The panel of a learner who has predicted is kept in the cache for everyone with the same
    prediction; another learner, with another prediction or none, gets their own panel."""
    from tests import factories

    reference_sweep("batchnorm-n-sweep")
    learner_client.post(reverse("labs:predict", args=["batchnorm-n-sweep", "loss"]), {"predicted": "N1"})
    for _ in range(2):  # drawn, then from the cache
        own = html.unescape(learner_client.get(GUIDE.format(language="en")).content.decode())
        assert "You predicted: N = 1." in own.split(f'id="explore-{FIG}"')[1]
    other = factories.other_account()
    FigurePrediction.objects.create(user=other, preset="batchnorm-n-sweep", figure="loss", predicted="N16")
    client.force_login(other)
    theirs = html.unescape(client.get(GUIDE.format(language="en")).content.decode())
    assert "You predicted: N = 16." in theirs and "You predicted: N = 1." not in theirs
    FigurePrediction.objects.filter(user=other).delete()
    tokens = set()
    for _ in range(2):  # no prediction: the form, drawn for this request with its own CSRF token
        panel = client.get(GUIDE.format(language="en")).content.decode().split(f'id="explore-{FIG}"')[1]
        panel = panel.split("</section>")[0]
        assert "You predicted" not in panel and 'name="predicted" value="N16"' in panel
        tokens.add(panel.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0])
    assert len(tokens) == 2  # masked afresh for each request: never a copy kept from another one


@pytest.mark.django_db
def test_a_new_reference_result_retires_the_cached_panel(learner_client, synced_content, reference_sweep):
    url = GUIDE.format(language="en")
    before = html.unescape(learner_client.get(url).content.decode()).split(f'id="explore-{FIG}"')[1]
    assert "Which run will end with the lowest training loss?" not in before.split("</section>")[0]
    reference_sweep("batchnorm-n-sweep")  # finished: the reference index is forgotten, as the worker does
    after = html.unescape(learner_client.get(url).content.decode()).split(f'id="explore-{FIG}"')[1]
    assert "Which run will end with the lowest training loss?" in after.split("</section>")[0]


@pytest.mark.django_db
def test_a_signed_in_guide_page_reads_the_learners_predictions_once(
    learner_client, synced_content, reference_sweep, django_assert_max_num_queries
):
    """However many figures the page has: one query for the learner's predictions, then none while
    they stand (accounts/learner_versions.py); the session and the learner once the figures' panels,
    the article and the guide read come from the cache."""
    reference_sweep("batchnorm-n-sweep")
    url = GUIDE.format(language="en")
    with CaptureQueriesContext(connection) as first:
        assert learner_client.get(url).status_code == 200
    assert sum("labs_figureprediction" in query["sql"] for query in first.captured_queries) == 1
    with django_assert_max_num_queries(2) as captured:
        assert learner_client.get(url).status_code == 200
    assert not any("labs_figureprediction" in query["sql"] for query in captured.captured_queries)
