"""guides-lm: a byte-level transformer trained on the course's own guides, its sizes and its data.

Plain PyTorch on the CPU, tiny size, a few steps per run: each test takes about a second.
"""

from pathlib import Path

import pytest
import torch

from labs.training import data
from labs.training.config import DEFAULT_CONFIG, RunConfig
from labs.training.data import BOS, IGNORE_INDEX, PAD, load_task_data
from labs.training.loop import ActivationMeter, Feed, loss_sum, run_experiment
from labs.training.models import build_model
from labs.training.sizes import SIZES

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)


def guides_config(**changes) -> RunConfig:
    values = {
        **DEFAULT_CONFIG,
        "task": "guides-lm",
        "norm": "layer",
        "effective_batch_size": 8,
        "accumulation_steps": 1,
        "optimizer": "sgd",
        "learning_rate": 0.5,
        "steps": 3,
    }
    return RunConfig(**{**values, **changes})


def weights(config: RunConfig) -> list[torch.Tensor]:
    result = run_experiment(config, device="cpu", keep_model=True)
    assert result.status == "finished"
    return [p.detach() for p in result.model.parameters()]


def largest_difference(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    return max(float((x - y).abs().max() / y.abs().max()) for x, y in zip(a, b, strict=True))


# ---------------------------------------------------------------- sizes


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("norm", ["layer", "rms", "none", "batch", "group"])
def test_every_size_states_its_true_parameter_count(size, norm):
    with torch.device("meta"):  # no memory, no initialization cost: only the shapes
        model = build_model("guides-lm", norm, size)
    assert sum(p.numel() for p in model.parameters()) == SIZES[size].parameter_count(norm)


def test_sizes_grow_to_tens_of_millions_and_only_tiny_runs_on_a_cpu():
    counts = [spec.parameter_count() for spec in SIZES.values()]
    assert counts == sorted(counts) and 30e6 <= counts[-1] <= 50e6
    assert [spec.needs_gpu for spec in SIZES.values()] == [False, True, True]
    assert "needs a GPU worker" in SIZES["small"].describe() and "MiB" in SIZES["small"].describe()


def test_tiny_activation_figure_is_what_the_meter_measures():
    spec = SIZES["tiny"]
    torch.manual_seed(0)
    model = build_model("guides-lm", "layer", "tiny")
    tokens = torch.randint(2, 258, (1, spec.context))
    meter = ActivationMeter(model, torch.device("cpu"))
    with meter.track():
        loss_sum(model(tokens), tokens).backward()
    assert meter.peak == pytest.approx(spec.activation_bytes_per_sequence, rel=0.1)


# ---------------------------------------------------------------- data


def test_the_validation_split_is_fixed_disjoint_and_independent_of_seed_and_size():
    train, val = data.split_paragraphs(data.DEFAULT_TEXT_DIR)
    assert val and len(train) > 10 * len(val)
    assert not set(train) & set(val)
    assert data.split_paragraphs(data.DEFAULT_TEXT_DIR) == (train, val)
    a = load_task_data("guides-lm", 0, context=128)
    b = load_task_data("guides-lm", 12345, context=128)
    assert torch.equal(a.val_x, b.val_x) and torch.equal(a.train_x, b.train_x)
    train_rows = {bytes(row.tolist()) for row in a.train_x}
    assert not train_rows & {bytes(row.tolist()) for row in a.val_x}
    assert a.val_lengths.min() >= data.MIN_PIECE and a.train_lengths.max() == 128


def test_real_text_in_three_languages_becomes_padded_byte_sequences(tmp_path: Path):
    guide = tmp_path / "a-guide"
    guide.mkdir()
    (guide / "en.md").write_text("---\ntitle: x\n---\n\n## Overview\n\nOne paragraph.\nStill it.\n\n\nNext.\n")
    (guide / "hi.md").write_text("नमस्ते दुनिया\n")
    (guide / "quiz.yaml").write_text("not: text\n")
    assert data.paragraphs((guide / "en.md").read_text()) == [
        "## Overview",
        "One paragraph.\nStill it.",
        "Next.",
    ]
    train, val = data.split_paragraphs(tmp_path)
    assert sorted(train + val) == sorted(["## Overview", "One paragraph.\nStill it.", "Next.", "नमस्ते दुनिया"])
    chunks = data.pieces(["नमस्ते दुनिया", "x" * 21], context=8)  # 37 UTF-8 bytes, then 21 bytes
    assert [len(chunk) for chunk in chunks] == [8, 8, 8, 8, 5, 8, 8, 5]
    inputs, targets, lengths = data.encode([b"ab", b"xyz"], context=4)
    assert inputs.tolist() == [[BOS, ord("a") + 2, PAD, PAD], [BOS, ord("x") + 2, ord("y") + 2, PAD]]
    assert targets.tolist() == [[ord("a") + 2, ord("b") + 2, IGNORE_INDEX, IGNORE_INDEX], [122, 123, 124, IGNORE_INDEX]]
    assert lengths.tolist() == [2, 3]
    with pytest.raises(ValueError, match="no guide text"):
        data.split_paragraphs(tmp_path / "missing")


# ---------------------------------------------------------------- accumulation


def test_micro_batches_hold_different_token_counts():
    """What makes the token normalization matter: the windows below are not evenly split."""
    config = guides_config(accumulation_steps=4, steps=50)  # the feed only: nothing is trained
    feed = Feed(load_task_data("guides-lm", 0, context=128), config, torch.device("cpu"), torch.float32)
    assert any(len(set(counts)) > 1 for counts in feed.micro_count)
    assert any(max(widths) > min(widths) for widths in feed.micro_width)  # padded to each micro-batch's longest


@pytest.mark.parametrize("norm", ["layer", "rms", "none"])
def test_n1_and_n4_train_the_same_weights_in_fp32(norm):
    one = weights(guides_config(norm=norm))
    four = weights(guides_config(norm=norm, accumulation_steps=4))
    assert largest_difference(four, one) <= 1e-5
    result = run_experiment(guides_config(norm=norm, accumulation_steps=4, steps=1), device="cpu")
    assert result.grad_equivalence_error <= 1e-5


def test_batch_norm_and_mean_of_micro_means_do_not():
    reference = weights(guides_config())
    assert (
        largest_difference(weights(guides_config(loss_scaling="mean_of_micro_means", accumulation_steps=4)), reference)
        > 1e-4
    )
    batch = run_experiment(guides_config(norm="batch", accumulation_steps=4, steps=1), device="cpu")
    assert batch.grad_equivalence_error > 1e-3


def test_a_run_reports_tokens_and_samples_per_second():
    result = run_experiment(guides_config(accumulation_steps=2), device="cpu")
    assert result.tokens_per_second > 0 and result.samples_per_second > 0
    assert result.curve[-1]["samples"] == 3 * 8 and result.curve[-1]["tokens"] > 3 * 8
    assert result.val_loss is not None and result.parameter_count == SIZES["tiny"].parameter_count("layer")
