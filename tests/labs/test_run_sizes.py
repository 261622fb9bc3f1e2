"""guides-lm's size and precision settings through the form, the API and the presets: the choices
are labs.training.config's, and what needs a GPU is refused, in the reader's language, unless the
site says its workers have one (LAB_DEVICE_CLASS)."""

import json

import pytest
from django.utils import translation
from django.utils.translation import gettext

from accounts.models import ApiToken
from labs import services
from labs.execution import ERROR_NEEDS_GPU, lab_run_execute
from labs.models import LabRun
from labs.presets import PRESETS
from labs.training import config as lab_config
from tests.factories import run_form

GUIDES_LM = {**lab_config.DEFAULT_CONFIG, "task": "guides-lm", "norm": "layer", "steps": 4, "effective_batch_size": 16}


def post(**changes) -> dict:
    data = {**GUIDES_LM, **changes}
    return {name: "" if value is None else str(value) for name, value in data.items()}


@pytest.fixture
def token(learner):
    _token, raw = ApiToken.issue(user=learner, name="script")
    return raw


def submit(client, token, data, language="en"):
    headers = {"Authorization": f"Bearer {token}", "Accept-Language": language}
    return client.post("/api/labs/runs", json.dumps(data), content_type="application/json", headers=headers)


def test_the_form_offers_the_trainers_sizes_and_precisions_with_safe_defaults():
    form = run_form()
    assert [value for value, _label in form.fields["size"].choices] == list(lab_config.SIZE_NAMES)
    assert [value for value, _label in form.fields["precision"].choices] == list(lab_config.PRECISIONS)
    before_sizes = {name: value for name, value in post().items() if name not in ("size", "precision")}
    form = run_form(before_sizes)  # no size or precision: a form from before these settings
    assert form.is_valid(), form.errors
    assert (form.run_config.size, form.run_config.precision) == ("tiny", "fp32")


def test_a_gpu_size_is_refused_on_a_cpu_site_in_french(settings):
    settings.LAB_DEVICE_CLASS = "cpu"
    with translation.override("fr"):
        form = run_form(post(size="small"))
        assert not form.is_valid()
        english = "This choice needs a GPU worker, and none is connected now."
        assert gettext(english) != english  # the catalog's French, read through gettext
        assert form.errors["size"] == [gettext(english)]


def test_a_gpu_site_accepts_gpu_sizes_and_tf32(settings):
    settings.LAB_DEVICE_CLASS = "cuda"
    form = run_form(post(size="medium", precision="tf32"))
    assert form.is_valid(), form.errors
    assert (form.run_config.size, form.run_config.precision) == ("medium", "tf32")


def test_the_api_refuses_a_gpu_precision_in_hindi_and_stores_nothing(client, token, settings):
    settings.LAB_DEVICE_CLASS = "cpu"
    response = submit(client, token, {**GUIDES_LM, "precision": "tf32"}, language="hi")
    assert response.status_code == 400
    ((entry),) = response.json()["fields"]
    assert entry["field"] == "precision" and "GPU" in entry["message"]
    assert any("\u0900" <= character <= "\u097f" for character in entry["message"])  # Devanagari
    assert LabRun.objects.count() == 0


def test_the_api_stores_a_bf16_tiny_run_and_describes_the_settings(client, token):
    response = submit(client, token, {**GUIDES_LM, "precision": "bf16"})
    assert response.status_code == 201, response.content
    run = LabRun.objects.get()
    assert run.config["task"] == "guides-lm" and run.config["precision"] == "bf16" and run.config["size"] == "tiny"
    schema = client.get("/api/openapi.json").json()["components"]["schemas"]["LabRunSettings"]["properties"]
    assert schema["size"]["enum"] == list(lab_config.SIZE_NAMES)
    assert schema["precision"]["enum"] == list(lab_config.PRECISIONS)
    assert "38.61M parameters" in schema["size"]["description"]


def test_the_transformer_preset_is_a_tiny_cpu_precision_sweep():
    preset = PRESETS["transformer-lm-tiny"]
    configs = [lab_config.validate_config(config)[0] for _label, config in preset.configs()]
    assert [config.precision for config in configs] == ["fp32", "bf16", "fp16"]
    assert all(config.task == "guides-lm" and config.size == "tiny" for config in configs)
    assert all(config.steps * config.effective_batch_size <= 320 for config in configs)  # seconds on a CPU


@pytest.fixture
def quiet_heartbeat(settings):
    settings.LAB_HEARTBEAT_INTERVAL = 3600  # as in test_execution: these runs are short


@pytest.mark.slow  # trains a model (torch): make test runs it, make unit leaves it out
def test_the_worker_trains_guides_lm_on_the_sites_guides(learner, quiet_heartbeat):
    config = lab_config.RunConfig(**{**GUIDES_LM, "effective_batch_size": 8, "steps": 2, "precision": "bf16"})
    run = services.lab_run_submit(user=learner, config=config)
    lab_run_execute(run_id=run.pk, worker="w")
    run.refresh_from_db()
    assert run.status == "succeeded" and run.config["precision"] == "bf16"
    assert run.curve[-1]["tokens"] > 16 and run.metrics["tokens_per_second"] > 0


def test_a_gpu_size_that_reaches_a_cpu_worker_fails_with_that_reason(learner, quiet_heartbeat):
    config = lab_config.RunConfig(**{**GUIDES_LM, "size": "small"})  # as a site with LAB_DEVICE_CLASS=cuda stores it
    run = services.lab_run_submit(user=learner, config=config)
    lab_run_execute(run_id=run.pk, worker="w")
    run.refresh_from_db()
    assert run.status == "failed" and run.error == ERROR_NEEDS_GPU and not run.curve
    english = "This run needs a GPU worker, and the worker that took it has none."
    with translation.override("fr"):
        assert gettext(english) != english  # the catalog's French, read through gettext
        assert run.error_message == gettext(english)
