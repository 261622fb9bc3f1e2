"""The whole settings space against the real trainer: whatever validate_config accepts trains
without raising (diverging to inf or NaN is a result, an exception is not), and whatever it
refuses comes with messages. So no run the form accepted can end with "unexpected error".

Plain PyTorch, no Django. Two or three steps per run keep each example well under a second.
"""

import json

import pytest
import torch
from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from labs.training.config import (
    ACCUMULATION_RANGE,
    BATCH_NORM_NEEDS_TWO,
    EFFECTIVE_BATCH_RANGE,
    LOSS_SCALINGS,
    NORMS,
    OPTIMIZERS,
    PRECISIONS,
    SIZE_NAMES,
    TASKS,
    RunConfig,
    validate_config,
)
from labs.training.loop import run_experiment
from labs.training.models import build_model

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)


def _settings(**changes) -> dict:
    base = {
        "task": "digits-mlp",
        "norm": "batch",
        "effective_batch_size": 16,
        "accumulation_steps": 4,
        "loss_scaling": "mean",
        "optimizer": "sgd",
        "learning_rate": 0.05,
        "steps": 2,
        "seed": 0,
        "grad_clip": None,
    }
    return {**base, **changes}


DIVERGES_AT_STEP_3 = _settings(
    task="tiny-lm", norm="none", accumulation_steps=16, loss_scaling="sum", learning_rate=10.0, steps=3
)


@st.composite
def batches(draw) -> tuple[int, int]:
    """(effective batch, N): mostly N dividing the batch, micro-batches of one sample often,
    and sometimes any N at all (refused unless it divides)."""
    low, high = EFFECTIVE_BATCH_RANGE
    effective = draw(st.sampled_from([1, 2, 3, 4, 8, 16, 64, high]) | st.integers(low, high))
    divisors = [n for n in range(1, min(effective, ACCUMULATION_RANGE[1]) + 1) if effective % n == 0]
    n = draw(st.sampled_from(divisors) | st.just(divisors[-1]) | st.integers(*ACCUMULATION_RANGE))
    return effective, n


@st.composite
def run_settings(draw) -> dict:
    effective, n = draw(batches())
    return {
        "task": draw(st.sampled_from(TASKS)),
        "norm": draw(st.sampled_from(NORMS)),
        "effective_batch_size": effective,
        "accumulation_steps": n,
        "loss_scaling": draw(st.sampled_from(LOSS_SCALINGS)),
        "optimizer": draw(st.sampled_from(OPTIMIZERS)),
        # The whole range, its edges (10 with "sum" diverges at once), and just outside it.
        "learning_rate": draw(st.floats(1e-5, 10.0) | st.sampled_from([1e-5, 10.0, 0.0, 11.0])),
        "steps": draw(st.integers(1, 3)),
        "seed": draw(st.integers(0, 2**31 - 1)),
        "grad_clip": draw(st.none() | st.floats(1e-6, 100.0) | st.sampled_from([5e-324, 100.0, 0.0, 101.0])),
        "size": draw(st.sampled_from(SIZE_NAMES)),  # above tiny: refused on this CPU
        "precision": draw(st.sampled_from(PRECISIONS)),  # tf32: refused on this CPU
    }


@settings(max_examples=100, deadline=None)
@given(data=run_settings())
@example(data=_settings(effective_batch_size=1, accumulation_steps=1))  # BatchNorm on one sample: refused
@example(data=_settings(effective_batch_size=16, accumulation_steps=16))  # the same through N
@example(data=_settings(effective_batch_size=2, accumulation_steps=1))  # two samples: trains
@example(data=_settings(task="digits-cnn", effective_batch_size=1, accumulation_steps=1))  # 64 pixels each
@example(data=_settings(task="tiny-lm", effective_batch_size=1, accumulation_steps=1))  # 3+ tokens each
@example(data=_settings(norm="group", loss_scaling="sum", learning_rate=10.0, optimizer="adamw"))
@example(data=DIVERGES_AT_STEP_3)
@example(data=_settings(task="guides-lm", effective_batch_size=1, accumulation_steps=1))  # 2+ bytes each
@example(data=_settings(task="guides-lm", norm="rms", effective_batch_size=8, accumulation_steps=2, precision="fp16"))
@example(data=_settings(task="tiny-lm", effective_batch_size=256, accumulation_steps=64, grad_clip=5e-324))
def test_every_accepted_setting_trains_and_every_refused_one_says_why(data):
    config, errors = validate_config(data)
    event("refused" if config is None else "trained")
    if config is None:
        assert errors and all(messages for messages in errors.values())
        assert all(message.strip() for messages in errors.values() for message in messages)
        return
    result = run_experiment(config)
    assert result.status in ("finished", "diverged")
    event(result.status)
    assert result.steps_done == config.steps or result.status == "diverged"
    json.dumps(result.to_dict(), allow_nan=False)  # what the worker stores: every number finite or None


def test_a_run_that_diverges_ends_diverged_not_with_an_exception():
    config, _errors = validate_config(DIVERGES_AT_STEP_3)
    result = run_experiment(config, device="cpu")  # bit for bit the same curve on every CPU
    assert result.status == "diverged" and result.curve[-1]["loss"] is None


def test_batch_norm_on_micro_batches_of_one_sample_of_the_mlp_is_refused_with_the_reason():
    for effective, n in [(1, 1), (16, 16), (64, 64)]:
        config, errors = validate_config(_settings(effective_batch_size=effective, accumulation_steps=n))
        assert config is None and errors == {"norm": [BATCH_NORM_NEEDS_TWO]}
    with pytest.raises(ValueError, match="Batch normalization cannot train"):
        RunConfig(**_settings(effective_batch_size=16, accumulation_steps=16))


def test_the_refusal_is_reported_with_the_other_cross_field_problems():
    _config, errors = validate_config(_settings(effective_batch_size=256, accumulation_steps=64, steps=500))
    assert errors.keys() == {"__all__"}  # micro-batches of 4: only the sample budget is over
    _config, errors = validate_config(_settings(effective_batch_size=1, accumulation_steps=1, optimizer="lion"))
    assert errors["norm"] == [BATCH_NORM_NEEDS_TWO] and "optimizer" in errors


def test_torch_itself_refuses_what_the_rule_refuses_and_trains_what_it_allows():
    """The rule mirrors torch, not a guess: the MLP's BatchNorm needs two samples; the CNN's
    (one value per pixel) and the language model's (one per token) train on one sample."""
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        build_model("digits-mlp", "batch").train()(torch.zeros(1, 1, 8, 8))
    assert build_model("digits-mlp", "batch").train()(torch.zeros(2, 1, 8, 8)).shape == (2, 10)
    assert build_model("digits-cnn", "batch").train()(torch.zeros(1, 1, 8, 8)).shape == (1, 10)
