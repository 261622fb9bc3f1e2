"""Data-parallel runs on the CPU with gloo: two real spawned processes per run.

Each run pays for two processes importing torch, so runs are tiny and shared
between tests through module fixtures.
"""

import os
from pathlib import Path

import pytest
import torch

from labs.training.config import Limits, RunConfig, config_fingerprint, validate_config
from labs.training.data_parallel import DataParallelError, run_ranks
from labs.training.loop import run_experiment
from tests.labs.training.failing_rank import train_failing
from tests.polling import wait_for

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

# How long a rank may stay silent (run_experiment's timeout_seconds) where the test does not time a hang:
# on a busy machine, two spawned ranks can take minutes to import torch and start.
PATIENCE = 900.0
BASE = {
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 32,
    "accumulation_steps": 2,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 3,
    "seed": 0,
}


def config(**changes) -> RunConfig:
    parsed, errors = validate_config({**BASE, **changes})
    assert not errors, errors
    return parsed


def flat_weights(model: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in model.parameters()])


def spawned_children() -> list[int]:
    """Live (not zombie) processes whose parent is this test process and that multiprocessing spawned."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue  # ended while we looked
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return found


@pytest.fixture(scope="module")
def one_process():
    return run_experiment(config(accumulation_steps=4), device="cpu", keep_model=True)


@pytest.fixture(scope="module")
def no_sync():
    return run_experiment(config(processes=2, sync="no_sync"), device="cpu", keep_model=True, timeout_seconds=PATIENCE)


def test_two_processes_of_two_micro_batches_train_the_weights_of_one_process_of_four(one_process, no_sync):
    ours, reference = flat_weights(no_sync.model), flat_weights(one_process.model)
    assert ((ours - reference).norm() / reference.norm()).item() < 1e-5
    assert [p["loss"] for p in no_sync.curve] == pytest.approx([p["loss"] for p in one_process.curve], rel=1e-5)
    assert no_sync.grad_equivalence_error < 1e-5
    assert no_sync.config["processes"] == 2 and no_sync.status == "finished"


def test_no_sync_all_reduces_n_times_less_than_every_micro_batch(no_sync):
    every = run_experiment(config(processes=2, sync="every_micro"), device="cpu", timeout_seconds=PATIENCE)
    n, steps = BASE["accumulation_steps"], BASE["steps"]
    assert no_sync.allreduce_calls == steps  # the tiny model's gradients fit one bucket
    assert every.allreduce_calls == n * no_sync.allreduce_calls
    assert every.allreduce_bytes == n * no_sync.allreduce_bytes
    assert no_sync.allreduce_bytes == steps * 4 * no_sync.parameter_count  # fp32 gradients
    assert every.grad_equivalence_error < 1e-5
    # Reported, not timed: compute is the window less communication, clamped at 0 on a busy machine.
    assert no_sync.communication_seconds > 0 and no_sync.compute_seconds >= 0


def test_a_data_parallel_run_reports_the_activation_memory_of_one_process(one_process, no_sync):
    # The same micro-batches of 8 samples on each rank as in one process: the same saved tensors,
    # and a few bytes that DDP's wrapper saves for its own backward.
    single = one_process.peak_activation_bytes
    assert single > 0 and single <= no_sync.peak_activation_bytes <= single + 256
    assert no_sync.activation_memory_method == one_process.activation_memory_method == "saved-tensors"


@pytest.mark.parametrize(("scaling", "matches"), [("mean", True), ("mean_of_rank_means", False)])
def test_token_mean_counts_tokens_across_processes(scaling, matches):
    # Sequences differ in length, so the two ranks' shares hold different numbers of tokens.
    lm = {"task": "tiny-lm", "norm": "layer", "effective_batch_size": 8, "steps": 1, "learning_rate": 0.01}
    result = run_experiment(config(**lm, processes=2, loss_scaling=scaling), device="cpu", timeout_seconds=PATIENCE)
    # The logged loss is the real token mean either way; the gradient is only right with "mean".
    single = run_experiment(config(**lm, accumulation_steps=4), device="cpu")
    assert result.final_loss == pytest.approx(single.final_loss, rel=1e-6)
    assert (result.grad_equivalence_error < 1e-5) is matches
    if not matches:
        assert result.grad_equivalence_error > 1e-3


def run_failing(fail_at: tuple[int, int, str], timeout_seconds: float = PATIENCE) -> None:
    """run_experiment's data-parallel path, with rank ``fail_at[0]`` failing (failing_rank.py)."""
    options = {"dtype": torch.float32, "keep_model": False, "text_dir": None, "fail_at": fail_at}
    run_ranks(train_failing, config(processes=2), options, "cpu", None, None, timeout_seconds)


@pytest.mark.parametrize("how", ["raise", "exit"])
def test_a_failing_process_fails_the_run_with_a_reason_and_leaves_no_process(how):
    with pytest.raises(DataParallelError) as failure:
        run_failing((1, 1, how))
    expected = "RuntimeError: failed on purpose before window 1" if how == "raise" else "ended with exit code 3"
    assert "Process 1 of 2" in str(failure.value) and expected in str(failure.value)
    assert spawned_children() == []


def test_a_hung_process_fails_the_run_with_a_reason_and_leaves_no_process():
    # Process 1 blocks forever at step 1; the small timeout fails the run, whichever side notices it
    # first: process 0's collective gives up, or the parent hears nothing for that long.
    with pytest.raises(DataParallelError) as failure:
        run_failing((1, 1, "hang"), timeout_seconds=3)
    reason = str(failure.value)
    assert "Process 0 of 2 failed" in reason or "one of them is stuck" in reason, reason
    assert spawned_children() == []


def test_cancelling_stops_every_process():
    seen = []
    result = run_experiment(
        config(processes=2, steps=20),
        device="cpu",
        on_progress=lambda point, done, total: seen.append(done),
        should_stop=lambda: len(seen) >= 2,
        timeout_seconds=PATIENCE,
    )
    assert result.status == "cancelled" and 2 <= result.steps_done < 20
    assert spawned_children() == []


def test_settings_for_processes_are_checked_and_old_runs_keep_their_fingerprint():
    old = config(accumulation_steps=4)
    assert (old.to_dict()["processes"], old.to_dict()["sync"]) == (1, "no_sync")  # every setting stored
    assert config_fingerprint(old) == config_fingerprint(RunConfig(**{**BASE, "accumulation_steps": 4}))
    assert config(processes=2).to_dict()["processes"] == 2
    assert config(processes=2).micro_batch_size == 8
    _, errors = validate_config({**BASE, "processes": 4, "accumulation_steps": 16})
    assert "4 × 16 = 64" in errors["accumulation_steps"][0]
    _, errors = validate_config({**BASE, "processes": 3})
    assert errors["processes"] == ["processes must be one of: 1, 2, 4; got 3."]
    _, errors = validate_config({**BASE, "processes": 4}, Limits(max_processes=2))
    assert errors["processes"] == ["processes must be at most 2 on this worker machine; got 4."]
    _, errors = validate_config({**BASE, "sync": "sometimes"})
    assert "sync must be one of: no_sync, every_micro" in errors["sync"][0]
    _, errors = validate_config({**BASE, "loss_scaling": "mean_of_rank_means"})
    assert errors["loss_scaling"] == ["loss_scaling mean_of_rank_means needs processes of 2 or more."]


def test_the_lab_form_takes_processes_up_to_the_workers_limit(settings):
    from tests.factories import run_form

    settings.LAB_MAX_PROCESSES = 2
    old_post = {**BASE, "grad_clip": ""}  # from before data parallelism: no processes, no sync
    form = run_form(old_post)
    assert form.is_valid(), form.errors
    assert form.run_config == config()
    form = run_form({**old_post, "processes": "2", "sync": "every_micro"})
    assert form.is_valid(), form.errors
    assert (form.run_config.processes, form.run_config.sync) == (2, "every_micro")
    form = run_form({**old_post, "processes": "4", "effective_batch_size": "64"})
    assert not form.is_valid()
    assert form.errors["processes"] == ["Processes (G) can be at most 2 on the worker machine; you chose 4."]


@pytest.mark.integration
def test_a_data_parallel_run_trains_on_the_real_worker(celery_worker, client, learner, settings):
    from accounts.models import ApiToken
    from labs.models import LabRun

    settings.LAB_MAX_PROCESSES = 2
    _token, raw = ApiToken.issue(user=learner, name="data-parallel")
    response = client.post(
        "/api/labs/runs",
        {**BASE, "processes": 2, "sync": "every_micro"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {raw}"},
    )
    assert response.status_code == 201, response.content
    run = LabRun.objects.get(pk=response.json()["id"])

    def ended() -> LabRun | None:
        current = LabRun.objects.get(pk=run.pk)
        return None if current.is_active else current

    run = wait_for(ended, 180, "the run to end")  # a bound for a stuck worker, not a speed test
    assert run.status == LabRun.Status.SUCCEEDED, (run.error, celery_worker.log_path.read_text()[-3000:])
    metrics = run.metrics
    assert metrics["allreduce_calls"] == BASE["steps"] * BASE["accumulation_steps"]
    assert metrics["grad_equivalence_error"] < 1e-5 and metrics["communication_seconds"] > 0
