"""Every run stores every setting; a run stored before, without the settings left at their default,
gets them from the data migration and keeps its fingerprint, so the same request still reuses it."""

import csv
import hashlib
import importlib
import io
import json

from django.apps import apps

from labs import services
from labs.export import curves_csv
from labs.forms import RunForm
from labs.models import LabRun
from labs.training.config import (
    CODE_VERSION,
    FIELDS,
    FIRST_FIELDS,
    Limits,
    RunConfig,
    config_fingerprint,
    validate_config,
)
from tests import factories

complete_run_settings = importlib.import_module("labs.migrations.0006_complete_run_settings")

# As runs were stored before every setting was: the ones at their default left out.
SPARSE = dict(factories.TINY_RUN)


def test_a_run_stored_before_every_setting_was_is_completed_and_still_reused(learner):
    # Its fingerprint as it was computed then: the stored (sparse) settings and the code version.
    fingerprint = hashlib.sha256(json.dumps({"config": SPARSE, "code": CODE_VERSION}, sort_keys=True).encode())
    old = LabRun.objects.create(
        user=learner,
        config=SPARSE,
        fingerprint=fingerprint.hexdigest(),
        code_version=CODE_VERSION,
        status=LabRun.Status.SUCCEEDED,
        total_steps=3,
        done_steps=3,
        curve=[{"step": step, "loss": 1.0 / step} for step in (1, 2, 3)],
    )

    complete_run_settings.fill_settings(apps, None)

    old.refresh_from_db()
    assert list(old.config) == [*SPARSE, "processes", "sync", "size", "precision"]
    assert {name: old.config[name] for name in ("processes", "sync", "size", "precision")} == {
        "processes": 1,
        "sync": "no_sync",
        "size": "tiny",
        "precision": "fp32",
    }
    assert old.fingerprint == fingerprint.hexdigest() and old.cost == 3 * 16
    config, errors = validate_config(SPARSE)
    assert config is not None, errors
    again = services.lab_run_submit(user=learner, config=config)
    assert again.reused_from == old and again.status == LabRun.Status.SUCCEEDED
    assert again.config == config.to_dict() and set(again.config) == set(FIELDS)  # stored complete


def test_each_declared_setting_reaches_the_form_the_api_the_exports_and_the_stored_run(client, learner, make_run):
    """Adding a setting is one declaration in RunConfig (and its label's translation): the form, the
    API's schemas, the CSV export and the stored run take every declared setting, and a setting added
    after the first runs leaves their fingerprint alone while it is at its default."""
    schemas = client.get("/api/openapi.json").json()["components"]["schemas"]
    form = RunForm(limits=Limits())
    run = make_run(learner, status=LabRun.Status.SUCCEEDED)
    header = next(csv.reader(io.StringIO(curves_csv([run]))))
    for name, field in RunConfig.model_fields.items():
        assert str(form.fields[name].label) == field.title, name
        assert name in schemas["LabRunSettings"]["properties"] and name in schemas["LabRunConfig"]["properties"]
        assert name in header and name in run.config
    config = RunConfig(**run.config)
    first_settings = {name: run.config[name] for name in FIRST_FIELDS}
    as_first_stored = json.dumps({"config": first_settings, "code": CODE_VERSION}, sort_keys=True)
    assert config_fingerprint(config) == hashlib.sha256(as_first_stored.encode()).hexdigest()
    assert config_fingerprint(config.replace(precision="bf16")) != config_fingerprint(config)
