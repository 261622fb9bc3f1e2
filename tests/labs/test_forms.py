"""The run form uses labs.training.config's choices, limits and rules, in the reader's language."""

from django.utils import translation

from labs.forms import RunForm
from labs.training import config as lab_config


def post(**changes) -> dict:
    data = {**lab_config.DEFAULT_CONFIG, **changes}
    return {name: "" if value is None else str(value) for name, value in data.items()}


def test_choices_and_limits_come_from_the_trainer_config():
    form = RunForm()
    assert [value for value, _label in form.fields["task"].choices] == list(lab_config.TASKS)
    assert [value for value, _label in form.fields["norm"].choices] == list(lab_config.NORMS)
    steps = form.fields["steps"]
    assert (steps.min_value, steps.max_value) == lab_config.STEPS_RANGE


def test_a_rule_across_fields_is_the_trainer_configs_message_translated():
    with translation.override("fr"):
        form = RunForm(post(effective_batch_size=30, accumulation_steps=4))
        assert not form.is_valid()
        assert form.errors["accumulation_steps"] == [
            "accumulation_steps doit diviser effective_batch_size\u00a0: 30 n'est pas divisible par 4."
        ]


def test_batch_norm_on_single_sample_micro_batches_is_refused_in_hindi():
    with translation.override("hi"):
        form = RunForm(post(task="digits-mlp", norm="batch", effective_batch_size=4, accumulation_steps=4))
        assert not form.is_valid()
        (message,) = form.errors["norm"]
        assert message != lab_config.BATCH_NORM_NEEDS_TWO
        assert any("\u0900" <= character <= "\u097f" for character in message)  # Devanagari


def test_the_budget_is_a_message_about_the_whole_form():
    form = RunForm(post(steps=500, effective_batch_size=256, accumulation_steps=4))
    assert not form.is_valid()
    assert "500 × 256 = 128,000" in form.non_field_errors()[0]
