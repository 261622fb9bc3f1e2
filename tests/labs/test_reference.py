"""Reference sweeps: site-owned, public, submitted when missing or outdated, trained like any run."""

import configparser
import shutil
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from course.page_cache import content_hash
from labs import reference
from labs.execution import lab_run_execute
from labs.models import LabRun
from labs.presets import PRESETS
from labs.selectors import queue_position
from labs.training import version
from labs.training.config import config_fingerprint, validate_config
from tests.polling import wait_for

ROOT = Path(__file__).resolve().parents[2]
LOW_PRIORITY_LIST = "gpu\x06\x169"  # kombu's Redis list for priority 9 (the step-0 list is "gpu")


def broker_lengths() -> tuple[int, int]:
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    return client.llen("gpu"), client.llen(LOW_PRIORITY_LIST)


def test_the_code_version_is_a_hash_of_the_training_code_not_its_prose(tmp_path):
    package = tmp_path / "training"
    shutil.copytree(version.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    before = version.training_code_version(package)
    assert before == version.training_code_version(version.PACKAGE_DIR) and len(before) == 12
    (package / "__pycache__").mkdir(exist_ok=True)
    (package / "__pycache__" / "loop.cpython-311.pyc").write_bytes(b"compiled")
    assert version.training_code_version(package) == before  # only the source counts
    loop = package / "loop.py"
    source = loop.read_text()
    assert source.startswith('"""') and '    """The run:' in source  # the module's and train()'s docstrings
    prose = source.replace('"""The lab\'s training loop', '"""The lab\'s own training loop', 1)
    prose = prose.replace('    """The run:', '    """The whole run:', 1) + "\n# a comment about the loop\n"
    loop.write_text(prose)
    assert version.training_code_version(package) == before  # docstrings and comments are not what runs
    config = package / "config.py"
    settings_source = config.read_text()
    assert 'gettext_noop("Effective batch size")' in settings_source  # a label learners read
    config.write_text(settings_source.replace('gettext_noop("Effective batch size")', 'gettext_noop("Batch size")'))
    assert version.training_code_version(package) == before  # nor is a label's or a message's wording
    config.write_text(settings_source.replace("ACCUMULATION_RANGE = (1, 64)", "ACCUMULATION_RANGE = (1, 32)"))
    assert version.training_code_version(package) != before
    config.write_text(settings_source)
    loop.write_text(source.replace("momentum=0.9", "momentum=0.8", 1))
    assert version.training_code_version(package) != before


@pytest.mark.parametrize("name", ["0005_code_version_without_prose", "0007_code_version_without_messages"])
def test_results_stored_under_an_older_hash_of_the_same_code_are_reused(name, db, learner, tiny_config, monkeypatch):
    """labs/migrations/0005 and 0007: rows stored under the version OLD (main at edfbb03, hashing
    bytes; at 17f6197, hashing syntax with messages' text) get the version and fingerprint of the
    same code as hashed now (NEW), so a new submission reuses them."""
    from importlib import import_module

    from django.apps import apps

    from labs import services
    from tests import factories

    migration = import_module(f"labs.migrations.{name}")
    digits, guides = tiny_config(seed=7), tiny_config(task="guides-lm", seed=7)
    monkeypatch.setattr("labs.training.config.CODE_VERSION", migration.OLD)  # as edfbb03 stored them
    stored = [
        factories.lab_run(learner, status="succeeded", config=config.to_dict(), code_version=migration.OLD)
        for config in (digits, guides)
    ]
    stale = factories.lab_run(
        learner, status="succeeded", config=tiny_config(seed=8).to_dict(), fingerprint="not-these-settings"
    )
    migration.move_results(apps, None, old=migration.OLD, new=migration.NEW)

    monkeypatch.setattr("labs.training.config.CODE_VERSION", migration.NEW)  # the code as that commit left it
    for run in (*stored, stale):
        run.refresh_from_db()
    assert [run.code_version for run in stored] == [migration.NEW, migration.NEW]
    assert [run.fingerprint for run in stored] == [services.run_fingerprint(digits), services.run_fingerprint(guides)]
    assert (stale.code_version, stale.fingerprint) == (migration.OLD, "not-these-settings")  # not provably the same
    again = services.lab_runs_submit(user=learner, configs=[digits, guides])
    assert [run.reused_from_id for run in again] == [run.pk for run in stored]
    assert all(run.status == "succeeded" for run in again)


@pytest.fixture
def unconsumed_queue():
    """No worker runs in the test: drop the messages it sent so no later test's worker gets them."""
    yield
    from config.celery import app

    app.control.purge()


@pytest.mark.integration  # reads the broker's lists in Redis
def test_the_command_submits_one_site_owned_public_sweep_per_preset_at_low_priority(
    db, django_capture_on_commit_callbacks, unconsumed_queue
):
    before = broker_lengths()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("submit_reference_sweeps", stdout=open("/dev/null", "w"))
    runs = LabRun.objects.filter(reference=True)
    assert set(runs.values_list("preset", flat=True)) == set(PRESETS)
    for slug, preset in PRESETS.items():
        sweep = list(runs.filter(preset=slug).order_by("preset_index"))
        assert len({run.sweep for run in sweep}) == 1 and len(sweep) == len(preset.runs)
        assert [run.fingerprint for run in sweep] == reference.preset_fingerprints(preset)
    assert not runs.exclude(user=None).exists() and all(run.is_public for run in runs)
    assert all(run.status == "queued" and run.enqueued_at is not None for run in runs)
    after = broker_lengths()
    assert after[0] == before[0]  # nothing on the learners' list...
    assert after[1] - before[1] == runs.count()  # ...every reference run on the low-priority one


def test_a_second_call_submits_nothing_and_a_code_change_submits_every_preset_again(db, monkeypatch):
    assert sorted(reference.reference_sweeps_submit_missing()) == sorted(PRESETS)
    assert reference.reference_sweeps_submit_missing() == []
    monkeypatch.setattr("labs.training.config.CODE_VERSION", "changed-code")
    assert sorted(reference.reference_sweeps_submit_missing()) == sorted(PRESETS)
    assert set(LabRun.objects.filter(reference=True).values_list("code_version", flat=True)) >= {"changed-code"}


def test_a_failed_reference_run_makes_its_preset_outdated(db):
    reference.reference_sweeps_submit_missing()
    LabRun.objects.filter(reference=True, preset="batchnorm-n-sweep", preset_index=1).update(status="failed")
    assert reference.reference_sweeps_submit_missing() == ["batchnorm-n-sweep"]


def test_the_run_command_is_switched_off_by_its_setting(db, settings):
    settings.LAB_REFERENCE_SWEEPS = False
    call_command("submit_reference_sweeps", "--if-enabled", stdout=open("/dev/null", "w"))
    assert not LabRun.objects.exists()
    call_command("submit_reference_sweeps", stdout=open("/dev/null", "w"))  # on demand it always runs
    assert LabRun.objects.filter(reference=True).exists()


def test_the_run_command_submits_them_once_after_start_up_in_the_background():
    config = configparser.RawConfigParser()
    config.read(ROOT / "config" / "supervisord.conf")
    program = config["program:references"]
    assert program["command"].endswith("manage.py submit_reference_sweeps --if-enabled")
    assert program["autorestart"] == "unexpected" and program["exitcodes"] == "0"  # once, not forever
    assert int(program["priority"]) > int(config["program:web"]["priority"])  # after the site is up


def test_a_learners_run_waits_behind_no_reference_run(db, learner, make_run, tiny_config):
    reference.reference_sweep_submit(preset=PRESETS["layernorm-n-sweep"])
    own = make_run(learner)
    assert queue_position(own) == 1
    first_reference = LabRun.objects.filter(reference=True).order_by("created_at", "pk").first()
    assert queue_position(first_reference) == 2


@pytest.mark.slow  # trains a model (torch): make test runs it, make unit leaves it out
def test_a_reference_sweep_trains_through_the_workers_code_and_retires_the_guide_pages(
    db, settings, django_capture_on_commit_callbacks
):
    settings.LAB_PRESET_MAX_STEPS = 2  # a tiny sweep: the test never waits on training speed
    preset = PRESETS["layernorm-n-sweep"]
    with django_capture_on_commit_callbacks(execute=False):
        runs = reference.reference_sweep_submit(preset=preset)
    hash_before = content_hash()
    assert reference.reference_sweep_latest(preset.slug) is None
    for run in runs:
        lab_run_execute(run_id=run.pk, worker="test-worker")  # what the Celery task calls
    done = reference.reference_sweep_latest(preset.slug)
    assert done is not None and [run.status for run in done.runs] == ["succeeded"] * 3
    assert all(run.metrics["final_loss"] > 0 and len(run.curve) == 2 for run in done.runs)
    assert done.devices == "cpu" and done.is_current
    assert reference.reference_index() == {preset.slug: done.sweep}
    assert content_hash() != hash_before  # cached guide pages are rendered again with the figure


def test_a_learners_sweep_reuses_the_reference_results(reference_sweep, learner):
    from labs.services import lab_preset_submit

    reference_runs = reference_sweep("layernorm-n-sweep")
    runs = lab_preset_submit(user=learner, preset=PRESETS["layernorm-n-sweep"])
    assert [run.reused_from_id for run in runs] == [run.pk for run in reference_runs]


def test_the_preset_page_shows_the_reference_to_everyone_with_date_device_and_code(client, reference_sweep):
    runs = reference_sweep("layernorm-n-sweep")
    html = client.get(reverse("labs:preset", args=["layernorm-n-sweep"])).content.decode()
    assert "Reference results" in html and "<svg" in html and 'role="img"' in html
    assert runs[0].code_version in html and "NVIDIA H200" in html
    assert all(f'data-reference-run="{run.pk}"' in html for run in runs)
    assert "Your latest sweep" not in html  # a visitor has no sweep of their own


def test_the_preset_page_shows_the_learners_own_sweep_beside_the_reference(
    learner_client, learner, make_run, reference_sweep
):
    runs = reference_sweep("layernorm-n-sweep")
    own = make_run(learner, status=LabRun.Status.SUCCEEDED, preset="layernorm-n-sweep")
    html = learner_client.get(reverse("labs:preset", args=["layernorm-n-sweep"])).content.decode()
    assert "Your latest sweep" in html and f'data-run-id="{own.pk}"' in html
    assert f"run={runs[0].pk}" in html and f"run={own.pk}" in html  # the link comparing both


def test_the_preset_page_finds_the_reference_sweep_through_the_cached_index(
    learner_client, reference_sweep, django_assert_max_num_queries
):
    """The session, the learner, their own latest sweep and the reference runs: the list of complete
    sweeps is read once into the index, not on every page."""
    reference_sweep("layernorm-n-sweep")
    url = reverse("labs:preset", args=["layernorm-n-sweep"])
    learner_client.get(url)
    with django_assert_max_num_queries(4):
        html = learner_client.get(url).content.decode()
    assert "Reference results" in html


def test_a_new_reference_sweep_replaces_the_one_the_preset_page_shows(client, reference_sweep):
    reference_sweep("layernorm-n-sweep")
    url = reverse("labs:preset", args=["layernorm-n-sweep"])
    client.get(url)
    newer = reference_sweep("layernorm-n-sweep")  # finished: the index is forgotten, as the worker does
    assert reference.reference_sweep_latest("layernorm-n-sweep").sweep == str(newer[0].sweep)


def test_without_a_reference_the_preset_page_says_so(client, db):
    html = client.get(reverse("labs:preset", args=["layernorm-n-sweep"])).content.decode()
    assert "have not finished the reference runs of this preset yet" in html


@pytest.mark.parametrize("slug", sorted(PRESETS))
def test_every_preset_has_valid_reference_configs(slug):
    for _label, data in PRESETS[slug].configs():
        config, errors = validate_config(data)
        assert config is not None, errors
        assert config_fingerprint(config) in reference.preset_fingerprints(PRESETS[slug])


@pytest.mark.integration
def test_a_real_worker_trains_a_learners_run_before_reference_runs_queued_earlier(
    make_worker, learner, tiny_config, settings
):
    """Every message is in Redis before the worker starts, so the order it takes them in is the
    broker's priority order, whatever the machine's speed."""

    from config.celery import app
    from labs.services import lab_run_submit

    app.control.purge()  # messages other tests left for run ids this test's rows may reuse
    settings.LAB_PRESET_MAX_STEPS = 2
    references = reference.reference_sweep_submit(preset=PRESETS["layernorm-n-sweep"])  # sent first, priority 9
    own = lab_run_submit(user=learner, config=tiny_config(steps=2, seed=11))  # sent last, priority 0
    assert all(run.enqueued_at is not None for run in LabRun.objects.all())
    make_worker("reference-order").start()
    ids = [run.pk for run in references] + [own.pk]
    wait_for(lambda: not LabRun.objects.filter(pk__in=ids).exclude(status="succeeded").exists(), 240, "every run")
    started = dict(LabRun.objects.filter(pk__in=ids).values_list("pk", "started_at"))
    assert started[own.pk] < min(started[run.pk] for run in references)
