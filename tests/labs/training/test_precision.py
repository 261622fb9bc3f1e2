"""The precision setting: exact float32 (TF32 off), bf16 autocast, fp16 autocast with a real
GradScaler used once per window, and the settings a CPU cannot train refused in words.

On the CPU: PyTorch 2.13 has a CPU GradScaler and CPU autocast for both 16-bit types.
"""

import pytest
import torch

from labs.training.config import ANY_GPU, DEFAULT_CONFIG, RunConfig, validate_config
from labs.training.loop import device_class, matmul_precision, run_experiment
from labs.training.models import build_model

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)


def lm_settings(**changes) -> dict:
    values = {
        **DEFAULT_CONFIG,
        "task": "guides-lm",
        "norm": "layer",
        "effective_batch_size": 8,
        "accumulation_steps": 4,
        "optimizer": "adamw",
        "learning_rate": 0.003,
        "steps": 3,
    }
    return {**values, **changes}


class CountingScaler(torch.amp.GradScaler):
    """The real GradScaler, logging the calls the loop makes."""

    calls: list[str] = []
    init_scale = 2.0**16

    def __init__(self, device: str, enabled: bool = True) -> None:
        super().__init__(device, init_scale=type(self).init_scale, enabled=enabled)

    def scale(self, outputs):
        self.calls.append("scale")
        return super().scale(outputs)

    def unscale_(self, optimizer):
        self.calls.append("unscale_")
        return super().unscale_(optimizer)

    def step(self, optimizer, *args, **kwargs):
        self.calls.append("step")
        return super().step(optimizer, *args, **kwargs)

    def update(self, new_scale=None):
        self.calls.append("update")
        return super().update(new_scale)


@pytest.fixture
def counting_scaler(monkeypatch):
    CountingScaler.calls = []
    monkeypatch.setattr(torch.amp, "GradScaler", CountingScaler)
    return CountingScaler


def test_fp16_scales_every_micro_batch_and_unscales_steps_and_updates_once_per_window(counting_scaler):
    result = run_experiment(RunConfig(**lm_settings(precision="fp16")), device="cpu")
    assert result.status == "finished" and result.config["precision"] == "fp16"
    window = ["scale"] * 4 + ["unscale_", "step", "update"]
    # Window 0 also backpropagates the full-batch reference once, scaled the same way.
    assert counting_scaler.calls == ["scale"] + window * 3
    assert all(point["skipped"] is False and point["loss_scale"] == 2.0**16 for point in result.curve)
    assert result.grad_equivalence_error < 1e-2  # scaled the same on both sides, so comparable


def test_fp16_steps_the_scaler_skips_are_on_the_curve_and_change_nothing(counting_scaler):
    counting_scaler.init_scale = 2.0**40  # far past float16's range: every gradient overflows
    try:
        result = run_experiment(RunConfig(**lm_settings(precision="fp16")), device="cpu", keep_model=True)
    finally:
        counting_scaler.init_scale = 2.0**16
    assert [point["skipped"] for point in result.curve] == [True, True, True]
    assert [point["loss_scale"] for point in result.curve] == [2.0**39, 2.0**38, 2.0**37]
    torch.manual_seed(0)
    untouched = build_model("guides-lm", "layer", "tiny")
    for trained, initial in zip(result.model.parameters(), untouched.parameters(), strict=True):
        assert torch.equal(trained, initial)


def test_bf16_autocast_runs_and_reports():
    result = run_experiment(RunConfig(**lm_settings(precision="bf16")), device="cpu")
    assert result.status == "finished" and result.config["precision"] == "bf16"
    assert result.dtype == "float32"  # autocast: the parameters and their gradients stay float32
    assert result.tokens_per_second > 0 and result.samples_per_second > 0
    assert "skipped" not in result.curve[0]
    exact = run_experiment(RunConfig(**lm_settings()), device="cpu")
    assert exact.grad_equivalence_error < 1e-5 < result.grad_equivalence_error


def test_fp32_turns_tf32_off_for_the_run_and_restores_it():
    matmul, cudnn = torch.backends.cuda.matmul, torch.backends.cudnn
    before = matmul.allow_tf32, cudnn.allow_tf32
    try:
        matmul.allow_tf32 = cudnn.allow_tf32 = True
        with matmul_precision("fp32"):
            assert (matmul.allow_tf32, cudnn.allow_tf32) == (False, False)
        assert (matmul.allow_tf32, cudnn.allow_tf32) == (True, True)
        matmul.allow_tf32 = cudnn.allow_tf32 = False
        with matmul_precision("tf32"):
            assert (matmul.allow_tf32, cudnn.allow_tf32) == (True, True)
        assert (matmul.allow_tf32, cudnn.allow_tf32) == (False, False)
    finally:
        matmul.allow_tf32, cudnn.allow_tf32 = before


def test_what_needs_a_gpu_is_refused_on_a_cpu_in_words():
    assert validate_config(lm_settings(size="small")) == (
        None,
        {"size": ["size small needs a GPU worker; none is connected."]},
    )
    assert validate_config(lm_settings(precision="tf32")) == (
        None,
        {"precision": ["precision tf32 needs a GPU worker; none is connected."]},
    )
    config, errors = validate_config(lm_settings(size="medium", precision="tf32"), ANY_GPU)
    assert errors == {} and (config.size, config.precision) == ("medium", "tf32")
    config, _errors = validate_config(lm_settings(precision="fp16"))
    assert config.to_dict()["precision"] == "fp16" and config.to_dict()["size"] == "tiny"  # every setting stored


def test_sizes_belong_to_guides_lm_and_mixed_precision_to_one_process():
    _config, errors = validate_config({**DEFAULT_CONFIG, "size": "small"}, ANY_GPU)
    assert errors == {"size": ["size small is for the guides-lm task; the other tasks have one size, tiny."]}
    _config, errors = validate_config({**DEFAULT_CONFIG, "precision": "bf16", "processes": 2})
    assert errors == {"precision": ["precision bf16 trains in one process; set processes to 1."]}


def test_a_gpu_size_that_reaches_a_cpu_worker_fails_with_the_reason():
    with pytest.raises(ValueError, match=r"^size small needs a GPU worker; none is connected\.$"):
        run_experiment(RunConfig(**lm_settings(size="small", steps=1)), device="cpu")
    assert device_class() == ("cuda" if torch.cuda.is_available() else "cpu")
