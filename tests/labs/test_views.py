import csv
import html
import io
import re

import pytest
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from labs.export import CURVE_COLUMNS, RUN_METRICS
from labs.models import LabRun
from labs.training.config import DEFAULT_CONFIG
from tests.lab_charts import drawing, lines, texts, y_label


def test_the_index_lists_every_preset_and_invites_visitors_to_log_in(client, db):
    response = client.get(reverse("labs:index"))
    assert response.status_code == 200
    html = response.content.decode()
    assert reverse("labs:preset", args=["batchnorm-n-sweep"]) in html
    assert reverse("accounts:login") in html
    assert 'action="/en/labs/runs/"' not in html


def test_the_index_shows_the_form_and_the_learners_runs(learner_client, learner, make_run):
    run = make_run(learner, status=LabRun.Status.SUCCEEDED)
    html = learner_client.get(reverse("labs:index")).content.decode()
    assert 'name="accumulation_steps"' in html
    assert reverse("labs:run", args=[run.pk]) in html


def test_a_preset_page_says_what_to_look_for_and_offers_one_click(learner_client):
    html = learner_client.get(reverse("labs:preset", args=["layernorm-n-sweep"])).content.decode()
    assert "coincide" in html
    assert reverse("labs:preset_run", args=["layernorm-n-sweep"]) in html
    assert "have not finished the reference runs of this preset yet" in html  # tests/labs/test_reference.py
    assert "You have not run this preset yet" in html


def test_only_the_data_parallel_preset_shows_processes_and_all_reduce(client, db):
    data_parallel = client.get(reverse("labs:preset", args=["data-parallel-no-sync"])).content.decode()
    assert "Processes (G)" in data_parallel and "every_micro" in data_parallel
    other = client.get(reverse("labs:preset", args=["layernorm-n-sweep"])).content.decode()
    assert "Processes (G)" not in other


def test_an_unknown_preset_is_a_404(client, db):
    assert client.get(reverse("labs:preset", args=["no-such-preset"])).status_code == 404


def test_running_a_preset_needs_an_account(client, db):
    response = client.post(reverse("labs:preset_run", args=["layernorm-n-sweep"]))
    assert response.status_code == 302 and reverse("accounts:login") in response["Location"]
    assert LabRun.objects.count() == 0


def test_running_a_preset_queues_its_sweep_and_opens_the_comparison(
    learner_client, learner, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = learner_client.post(reverse("labs:preset_run", args=["layernorm-n-sweep"]))
    runs = list(LabRun.objects.order_by("preset_index"))
    assert [run.config["accumulation_steps"] for run in runs] == [1, 4, 16]
    assert len({run.sweep for run in runs}) == 1 and runs[0].sweep is not None
    assert all(run.status == "queued" and run.enqueued_at is not None for run in runs)
    assert len(callbacks) == 3
    assert response.status_code == 302
    assert response["Location"] == reverse("labs:compare") + "?" + "&".join(f"run={run.pk}" for run in runs)


def test_the_preset_page_shows_the_learners_own_latest_sweep(learner_client, learner, other_learner, make_run):
    run = make_run(learner, status=LabRun.Status.SUCCEEDED, preset="layernorm-n-sweep")
    others = make_run(other_learner, status=LabRun.Status.SUCCEEDED, preset="layernorm-n-sweep")
    html = learner_client.get(reverse("labs:preset", args=["layernorm-n-sweep"])).content.decode()
    assert len(lines(drawing(html))) == 1  # tests/labs/test_run_charts.py
    assert f'data-run-id="{run.pk}"' in html and f'data-run-id="{others.pk}"' not in html


def test_a_valid_form_stores_a_queued_run_and_redirects_to_its_page(learner_client, learner):
    data = {**DEFAULT_CONFIG, "steps": 5, "grad_clip": ""}
    response = learner_client.post(reverse("labs:submit"), data)
    run = LabRun.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("labs:run", args=[run.pk])
    assert run.user == learner and run.status == "queued" and run.config["steps"] == 5
    assert run.config["grad_clip"] is None


def test_a_form_with_n_not_dividing_the_batch_explains_why(learner_client):
    data = {**DEFAULT_CONFIG, "effective_batch_size": 30, "accumulation_steps": 4, "grad_clip": ""}
    response = learner_client.post(reverse("labs:submit"), data)
    assert response.status_code == 400
    assert "30 is not divisible by 4" in response.content.decode()
    assert LabRun.objects.count() == 0


def test_a_form_with_several_problems_lists_them_all_at_the_top_by_the_fields_labels(learner_client):
    data = {**DEFAULT_CONFIG, "grad_clip": "", "learning_rate": "fast", "effective_batch_size": 30}
    data |= {"accumulation_steps": 4, "task": "digits-mlp", "size": "small"}
    response = learner_client.post(reverse("labs:submit"), data)
    assert response.status_code == 400
    summary = response.text.split('id="lab-form-errors"', 1)[1].split("</div>", 1)[0]
    listed = re.findall(r'<li><a href="#id_(\w+)">([^<]+)</a>: ', summary)
    assert listed == [
        ("accumulation_steps", "Accumulation factor (N)"),
        ("learning_rate", "Learning rate"),
        ("size", "Model size (guides-lm)"),
    ]  # in the form's order, each linked to its field
    assert "30 is not divisible by 4" in summary
    assert "accumulation_steps" not in re.sub(r'href="#id_\w+"', "", summary)  # no API name in the words
    assert LabRun.objects.count() == 0


def test_the_run_page_names_each_setting_by_the_forms_label(learner_client, learner, make_run):
    run = make_run(learner, status=LabRun.Status.SUCCEEDED)
    html = learner_client.get(reverse("labs:run", args=[run.pk])).content.decode()
    table = html.split('class="data-table lab-config"', 1)[1].split("</table>", 1)[0]
    headers = re.findall(r'<th scope="row">(.*?)</th>', table)
    assert headers[:4] == ["Task", "Normalization layer", "Effective batch size", "Accumulation factor (N)"]
    assert "<code>" not in table and "effective_batch_size" not in table
    french = learner_client.get(reverse("labs:run", args=[run.pk]).replace("/en/", "/fr/", 1)).text
    assert "Taille de lot effective" in french.split('class="data-table lab-config"', 1)[1].split("</table>", 1)[0]


def test_the_form_refuses_a_setting_it_does_not_know_as_the_api_does(learner_client):
    data = {**DEFAULT_CONFIG, "steps": 5, "grad_clip": "", "warmup_steps": "10"}
    response = learner_client.post(reverse("labs:submit"), data)
    assert response.status_code == 400
    assert "&#x27;warmup_steps&#x27; is not a known setting. The settings are: task, norm," in response.text
    assert LabRun.objects.count() == 0


def test_the_form_refuses_a_setting_sent_twice(learner_client):
    """The form once trained the last of two values without a word; the API refuses both."""
    data = {**DEFAULT_CONFIG, "grad_clip": "", "steps": ["5", "500"]}
    response = learner_client.post(reverse("labs:submit"), data)
    assert response.status_code == 400
    assert "steps is given more than once; give each setting once." in response.text
    french = learner_client.post("/fr/labs/runs/", data)
    with translation.override("fr"):
        twice = gettext("%(name)s is given more than once; give each setting once.") % {"name": "steps"}
    assert twice.startswith("steps est")  # the catalog's French, read through gettext
    assert french.status_code == 400 and twice in html.unescape(french.text)
    assert LabRun.objects.count() == 0


def test_a_private_run_is_hidden_from_others_but_open_through_its_share_link(client, other_learner, make_run):
    run = make_run(other_learner, status=LabRun.Status.SUCCEEDED)
    assert client.get(reverse("labs:run", args=[run.pk])).status_code == 404
    shared = client.get(reverse("labs:shared", args=[run.share_token]))
    assert shared.status_code == 200
    assert "Cancel this run" not in shared.content.decode()


def test_making_a_new_share_link_retires_the_old_one(learner_client, learner, make_run):
    run = make_run(learner, status=LabRun.Status.SUCCEEDED)
    old = run.share_token
    learner_client.post(reverse("labs:share_reset", args=[run.pk]))
    run.refresh_from_db()
    assert run.share_token != old
    assert learner_client.get(reverse("labs:shared", args=[old])).status_code == 404


def test_an_active_run_fragment_keeps_polling_and_a_finished_one_stops(learner_client, learner, make_run):
    active = make_run(learner, status=LabRun.Status.RUNNING, done_steps=1)
    finished = make_run(learner, status=LabRun.Status.SUCCEEDED)
    polling = learner_client.get(reverse("labs:run", args=[active.pk]), headers={"HX-Request": "true"})
    done = learner_client.get(reverse("labs:run", args=[finished.pk]), headers={"HX-Request": "true"})
    assert 'hx-trigger="every 1s"' in polling.content.decode()
    assert "<html" not in polling.content.decode()
    assert "hx-trigger" not in done.content.decode()
    assert len(lines(drawing(done.content.decode()))) == 1  # the last poll brings the whole curve


def test_the_run_page_offers_cancel_to_its_owner_while_active(learner_client, learner, make_run):
    run = make_run(learner)
    html = learner_client.get(reverse("labs:run", args=[run.pk])).content.decode()
    assert reverse("labs:cancel", args=[run.pk]) in html
    learner_client.post(reverse("labs:cancel", args=[run.pk]))
    run.refresh_from_db()
    assert run.status == "cancelled"


def test_a_reused_run_says_so(learner_client, learner, make_run):
    original = make_run(learner, status=LabRun.Status.SUCCEEDED)
    reused = make_run(learner, status=LabRun.Status.SUCCEEDED, reused_from=original)
    html = learner_client.get(reverse("labs:run", args=[reused.pk])).content.decode()
    assert "stored result instead of training again" in html


def test_the_compare_page_overlays_visible_runs_and_skips_hidden_ones(learner_client, learner, other_learner, make_run):
    mine = make_run(learner, status=LabRun.Status.SUCCEEDED)
    public = make_run(other_learner, status=LabRun.Status.SUCCEEDED, preset="memory-vs-n")
    private = make_run(other_learner, status=LabRun.Status.SUCCEEDED)
    url = reverse("labs:compare") + f"?run={mine.pk}&run={public.pk}&run={private.pk}&x=samples&y=log"
    response = learner_client.get(url)
    html = response.content.decode()
    svg = drawing(html)
    assert len(lines(svg)) == 2  # mine and the public one
    assert y_label(svg) == "training loss (logarithmic)" and "samples seen" in texts(svg)
    assert f'data-run-id="{private.pk}"' not in html
    assert "hx-trigger" not in html  # nothing left to wait for
    assert '<option value="log" selected>' in html
    assert f"run={mine.share_token}" in html  # the shareable link names private runs by token


def test_the_compare_share_link_shows_private_runs_to_anyone_holding_it(client, learner, make_run):
    run = make_run(learner, status=LabRun.Status.SUCCEEDED)
    html = client.get(reverse("labs:compare") + f"?run={run.share_token}").content.decode()
    assert f'data-run-id="{run.pk}"' in html


def test_compare_exports_curves_as_csv_and_runs_as_json(learner_client, learner, make_run):
    run = make_run(learner, status=LabRun.Status.SUCCEEDED)
    csv_response = learner_client.get(reverse("labs:compare_csv") + f"?run={run.pk}")
    rows = list(csv.DictReader(io.StringIO(csv_response.content.decode())))
    assert len(rows) == run.config["steps"] and rows[0]["run_id"] == str(run.pk)
    assert list(rows[0])[:2] == ["run_id", "label"] and list(rows[0])[-9:] == list(CURVE_COLUMNS)
    # Each row carries the run's every setting (defaults included) and every metric it stores.
    assert {name: rows[0][name] for name in ("sync", "precision", "size", "processes")} == {
        "sync": "no_sync",
        "precision": "fp32",
        "size": "tiny",
        "processes": "1",
    }
    assert set(RUN_METRICS) <= set(rows[0]) and rows[0]["final_loss"] == "0.5" and rows[0]["dtype"] == ""
    assert [row["step"] for row in rows] == ["1", "2", "3"] and rows[1]["loss"] == "1.0"
    assert csv_response["Content-Disposition"].startswith("attachment")
    runs = learner_client.get(reverse("labs:compare_json") + f"?run={run.pk}").json()["runs"]
    assert runs[0]["id"] == run.pk and len(runs[0]["curve"]) == run.config["steps"]
    assert list(runs[0]["metrics"]) == list(RUN_METRICS) and runs[0]["config"]["precision"] == "fp32"


def test_the_compare_fragment_polls_while_a_run_is_active(learner_client, learner, make_run):
    run = make_run(learner, status=LabRun.Status.RUNNING)
    response = learner_client.get(reverse("labs:compare") + f"?run={run.pk}", headers={"HX-Request": "true"})
    assert 'hx-trigger="every 1s"' in response.content.decode()


@pytest.mark.parametrize("query", ["?run=abc", "?run=99999999999999999999999", "?smooth=lots&x=nope", ""])
def test_the_compare_page_tolerates_odd_queries(client, db, query):
    assert client.get(reverse("labs:compare") + query).status_code == 200


@pytest.mark.parametrize("name", ["labs:compare", "labs:compare_json", "labs:compare_csv"])
@pytest.mark.parametrize("ref", ["²", "1²", "１"])  # str.isdigit() takes them; int() refuses the first two
def test_a_run_id_with_digits_other_than_ascii_is_no_run(client, db, name, ref):
    """Only ASCII digits make a run id; anything else is looked up as a share token, which it is not."""
    response = client.get(reverse(name), {"run": ref})
    assert response.status_code == 200
    if name == "labs:compare_json":
        assert response.json() == {"runs": []}


def test_the_dashboard_lists_the_learners_recent_runs(learner_client, learner, make_run):
    run = make_run(learner, status=LabRun.Status.FAILED, error="boom")
    html = learner_client.get(reverse("accounts:dashboard")).content.decode()
    assert reverse("labs:run", args=[run.pk]) in html and "Failed" in html


def test_submission_is_rate_limited_per_learner(clock_held, learner_client, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "lab_submit": "1/h"}
    data = {**DEFAULT_CONFIG, "steps": 2, "grad_clip": ""}
    assert learner_client.post(reverse("labs:submit"), data).status_code == 302
    refused = learner_client.post(reverse("labs:submit"), {**data, "seed": 1})
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 3600
    assert "wait a minute" not in refused.text  # the hourly limit says its real wait
    assert LabRun.objects.count() == 1


def test_a_data_parallel_run_shows_its_micro_batch_as_b_over_n_times_g(learner_client, learner, make_run):
    """B = 64 split over G = 2 processes, each accumulating N = 2 micro-batches: 64 / (2 × 2) = 16."""
    run = make_run(
        learner,
        status=LabRun.Status.SUCCEEDED,
        config={"task": "tiny-lm", "effective_batch_size": 64, "accumulation_steps": 2, "processes": 2},
    )
    assert run.micro_batch_size == 16
    page = learner_client.get(reverse("labs:run", args=[run.pk])).content.decode()
    assert re.search(r"Micro-batch size</th><td>16</td>", page)
    compared = learner_client.get(reverse("labs:compare") + f"?run={run.pk}").content.decode()
    row = re.search(rf'<tr data-run-id="{run.pk}">.*?</tr>', compared, re.S).group(0)
    assert "<td>2</td><td>16</td>" in row  # N, then the micro-batch
    one_process = make_run(learner, config={"effective_batch_size": 64, "accumulation_steps": 2})
    assert one_process.micro_batch_size == 32


@pytest.mark.parametrize("batch, n, g", [(64, 2, 2), (64, 4, 1), (64, 1, 4), (32, 2, 4), (16, 16, 1)])
def test_a_stored_run_and_its_training_settings_agree_on_the_micro_batch(tiny_config, batch, n, g):
    config = tiny_config(task="tiny-lm", effective_batch_size=batch, accumulation_steps=n, processes=g)
    assert LabRun(config=config.to_dict()).micro_batch_size == config.micro_batch_size == batch // (n * g)
