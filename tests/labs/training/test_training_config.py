"""validate_config and RunConfig: no Django, no torch needed."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from labs.training.config import (
    DEFAULT_CONFIG,
    RunConfig,
    config_fingerprint,
    validate_config,
)

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

REPO = Path(__file__).resolve().parents[3]


def settings(**changes):
    return {**DEFAULT_CONFIG, **changes}


def test_default_is_valid_and_round_trips():
    config, errors = validate_config(settings())
    assert errors == {}
    assert config.micro_batch_size == 16
    assert config.to_dict() == DEFAULT_CONFIG
    again, errors = validate_config(json.loads(json.dumps(config.to_dict())))
    assert again == config and errors == {}


def test_strings_for_numbers_are_accepted():
    config, errors = validate_config(
        settings(
            effective_batch_size=" 32 ",
            accumulation_steps="8",
            learning_rate="1e-3",
            steps="10",
            seed="7",
            grad_clip="1.5",
            task=" Tiny-LM ",
        )
    )
    assert errors == {}
    assert (config.effective_batch_size, config.accumulation_steps, config.steps) == (32, 8, 10)
    assert config.learning_rate == 1e-3 and config.grad_clip == 1.5 and config.task == "tiny-lm"


@pytest.mark.parametrize("empty", [None, "", "none"])
def test_grad_clip_may_be_empty(empty):
    config, errors = validate_config(settings(grad_clip=empty))
    assert errors == {} and config.grad_clip is None


def test_grad_clip_is_optional():
    data = settings()
    del data["grad_clip"]
    config, errors = validate_config(data)
    assert errors == {} and config.grad_clip is None


def test_non_divisible_accumulation_is_explained():
    config, errors = validate_config(settings(effective_batch_size=64, accumulation_steps=5))
    assert config is None
    assert errors["accumulation_steps"] == [
        "accumulation_steps must divide effective_batch_size: 64 is not divisible by 5."
    ]


def test_more_micro_batches_than_samples():
    _, errors = validate_config(settings(effective_batch_size=4, accumulation_steps=8))
    assert "cannot be larger than effective_batch_size" in errors["accumulation_steps"][0]


@pytest.mark.parametrize(
    "field, value",
    [
        ("effective_batch_size", 0),
        ("effective_batch_size", 257),
        ("accumulation_steps", 65),
        ("steps", 0),
        ("steps", 501),
        ("learning_rate", 0),
        ("learning_rate", -0.1),
        ("learning_rate", 11),
        ("learning_rate", "nan"),
        ("learning_rate", "inf"),
        ("seed", -1),
        ("seed", 2**31),
        ("grad_clip", 0),
        ("grad_clip", 101),
    ],
)
def test_out_of_range(field, value):
    config, errors = validate_config(settings(**{field: value}))
    assert config is None
    assert list(errors) == [field]
    assert errors[field][0].startswith(field + " must be")


@pytest.mark.parametrize(
    "field, value",
    [
        ("effective_batch_size", True),
        ("effective_batch_size", 64.5),
        ("effective_batch_size", "sixty-four"),
        ("effective_batch_size", [64]),
        ("steps", None),
        ("steps", {"n": 1}),
        ("learning_rate", False),
        ("learning_rate", "fast"),
        ("learning_rate", 10**400),
        ("task", 3),
        ("task", "imagenet"),
        ("norm", "instance"),
        ("loss_scaling", None),
        ("optimizer", "lion"),
        ("grad_clip", "big"),
    ],
)
def test_wrong_types_and_choices(field, value):
    config, errors = validate_config(settings(**{field: value}))
    assert config is None and field in errors
    assert all(isinstance(m, str) and m.endswith(".") for m in errors[field])


def test_unknown_task_lists_choices():
    _, errors = validate_config(settings(task="imagenet"))
    assert errors["task"] == ["task must be one of: digits-cnn, digits-mlp, tiny-lm, guides-lm; got 'imagenet'."]


def test_unknown_and_missing_keys():
    data = settings(lr=0.1)
    del data["steps"]
    config, errors = validate_config(data)
    assert config is None
    assert errors["steps"] == ["steps is required."]
    assert "'lr' is not a known setting" in errors["__all__"][0]


def test_budget():
    config, errors = validate_config(settings(steps=500, effective_batch_size=256))
    assert config is None
    assert "64,000" in errors["__all__"][0] and "500 × 256 = 128,000" in errors["__all__"][0]
    assert validate_config(settings(steps=250, effective_batch_size=256))[1] == {}


def test_all_errors_reported_at_once():
    _, errors = validate_config(
        settings(task="x", effective_batch_size=64, accumulation_steps=5, steps=500, learning_rate="?")
    )
    assert {"task", "learning_rate", "accumulation_steps"} <= set(errors)


@pytest.mark.parametrize("data", [None, [], "task", 3, {1: 2}, {"task": object()}, {None: None}])
def test_not_a_mapping_or_odd_keys(data):
    config, errors = validate_config(data)
    assert config is None and errors
    assert all(isinstance(k, str) for k in errors)


def test_runconfig_checks_direct_construction():
    with pytest.raises(ValueError, match="not divisible"):
        RunConfig(**settings(accumulation_steps=5))
    assert RunConfig(**settings(learning_rate=1)).learning_rate == 1.0


def test_the_fingerprint_is_the_same_for_the_same_settings_and_differs_with_a_seed():
    a, _ = validate_config(settings())
    b, _ = validate_config(settings(seed=1))
    assert config_fingerprint(a) == config_fingerprint(validate_config(settings())[0])
    assert config_fingerprint(a) != config_fingerprint(b)


def test_config_does_not_import_torch():
    code = "import sys, labs.training.config; assert 'torch' not in sys.modules, 'torch imported'"
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
