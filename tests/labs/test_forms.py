"""The run form uses labs.training.config's choices, limits and rules, in the reader's language."""

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext

from labs.forms import RunForm
from labs.training import config as lab_config
from tests.factories import run_form


def post(**changes) -> dict:
    data = {**lab_config.DEFAULT_CONFIG, **changes}
    return {name: "" if value is None else str(value) for name, value in data.items()}


def test_choices_and_limits_come_from_the_trainer_config():
    form = run_form()
    assert [value for value, _label in form.fields["task"].choices] == list(lab_config.TASKS)
    assert [value for value, _label in form.fields["norm"].choices] == list(lab_config.NORMS)
    steps = form.fields["steps"]
    assert (steps.min_value, steps.max_value) == lab_config.STEPS_RANGE


def test_a_rule_across_fields_is_the_trainer_configs_rule_in_the_forms_words_translated():
    with translation.override("fr"):
        form = run_form(post(effective_batch_size=30, accumulation_steps=4))
        assert not form.is_valid()
        # The catalog's French, read through gettext: a reader's rewording never breaks the test.
        wording = (
            "Accumulation factor (N) must divide the effective batch size: %(effective)s is not divisible by %(n)s."
        )
        expected = gettext(wording) % {"effective": 30, "n": 4}
        assert form.errors["accumulation_steps"] == [expected]
    assert expected != wording % {"effective": 30, "n": 4} and "30" in expected  # translated, with the numbers


def test_batch_norm_on_single_sample_micro_batches_is_refused_in_hindi():
    with translation.override("hi"):
        form = run_form(post(task="digits-mlp", norm="batch", effective_batch_size=4, accumulation_steps=4))
        assert not form.is_valid()
        (message,) = form.errors["norm"]
        assert message != lab_config.BATCH_NORM_NEEDS_TWO
        assert any("\u0900" <= character <= "\u097f" for character in message)  # Devanagari


def test_the_budget_is_a_message_about_the_whole_form():
    form = run_form(post(steps=500, effective_batch_size=256, accumulation_steps=4))
    assert not form.is_valid()
    assert "500 × 256 = 128,000" in form.non_field_errors()[0]


# What a learner broke at once: a field the form itself refuses, and two rules across fields.
SEVERAL_PROBLEMS = {"learning_rate": "fast", "effective_batch_size": 30, "accumulation_steps": 4, "size": "small"}
# The API's names as its messages write them: effective_batch_size, or "processes" as a setting
# ("set processes to 1"); a label is what the form shows ("Processes (G)").
NAMED_AS_IN_THE_API = [name for name in lab_config.FIELDS if "_" in name] + ["processes"]
API_NAMES = re.compile("|".join(rf"\b{name}\b" for name in NAMED_AS_IN_THE_API))


def test_every_problem_is_listed_at_once_not_one_kind_after_the_other():
    form = run_form(post(task="digits-mlp", **SEVERAL_PROBLEMS))
    assert not form.is_valid()
    assert set(form.errors) == {"learning_rate", "accumulation_steps", "size"}
    assert form.run_config is None


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
@pytest.mark.parametrize(
    "changes",
    [
        {"effective_batch_size": 30, "accumulation_steps": 4},  # N does not divide the batch
        {"effective_batch_size": 4, "accumulation_steps": 8},  # N above the batch
        {"effective_batch_size": 64, "accumulation_steps": 3, "processes": 2},  # G × N does not divide it
        {"steps": 500, "effective_batch_size": 256, "accumulation_steps": 4},  # over the sample budget
        {"task": "digits-mlp", "size": "small"},  # a size for guides-lm only
        {"precision": "bf16", "processes": 2},  # mixed precision in one process only
        {"task": "guides-lm", "size": "small"},  # needs a GPU worker
    ],
)
def test_the_forms_messages_name_the_settings_by_their_labels_not_the_apis_names(language, changes, settings):
    settings.LAB_MAX_PROCESSES = 2
    with translation.override(language):
        form = run_form(post(**changes))
        assert not form.is_valid()
        messages = [message for field_messages in form.errors.values() for message in field_messages]
    assert messages and not [message for message in messages if API_NAMES.search(message)], messages
    if language != "en":  # said in the page's language
        english = [m for field_messages in run_form(post(**changes)).errors.values() for m in field_messages]
        assert not set(messages) & set(english), messages
    # Nor "size small", "precision bf16": the API's name=value, not a sentence.
    assert not [m for m in messages for name, value in changes.items() if f"{name} {value}" in m], messages


def test_building_and_checking_the_form_or_an_api_body_reads_no_heartbeats(monkeypatch):
    """The view reads the connected workers once and passes their limits in: the form and the body
    schema never scan Redis themselves."""
    from labs.schemas import LabRunSettings

    def scanned():
        raise AssertionError("the worker heartbeats were read")

    monkeypatch.setattr("labs.workers.heartbeats", scanned)
    monkeypatch.setattr("labs.workers.published_workers", scanned)
    gpu = lab_config.Limits("cuda", lab_config.SIZE_NAMES, 2, ("cuda",))
    form = RunForm(post(task="guides-lm", size="medium", processes=2), limits=gpu)
    assert form.is_valid(), form.errors
    assert RunForm(post(task="guides-lm", size="medium"), limits=lab_config.Limits()).errors["size"]
    body = LabRunSettings.model_validate({**lab_config.DEFAULT_CONFIG, "steps": "150"})
    assert body.steps == 150
