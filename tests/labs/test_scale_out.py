"""Scale-out: two Celery workers consume the `gpu` queue at once. bin/test runs this on SQLite and
again on PostgreSQL. Every run is trained exactly once, even when each message is delivered twice,
and gives the result that the same settings and seed give when trained here, in this process.
"""

import re
from collections import Counter

import pytest

from labs.models import LabRun
from labs.services import lab_run_submit
from labs.training.config import validate_config
from labs.workers import lab_run_enqueue
from tests.polling import wait_for

pytestmark = pytest.mark.integration

BASE = {
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 32,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 15,
    "seed": 11,
}
BATCH = [  # six different runs: nothing is reused, each one must be trained
    BASE,
    {**BASE, "accumulation_steps": 1, "seed": 12},
    {**BASE, "norm": "batch", "accumulation_steps": 8},
    {**BASE, "norm": "none", "loss_scaling": "sum", "learning_rate": 0.005},
    {**BASE, "optimizer": "adamw", "learning_rate": 0.001, "seed": 13},
    {**BASE, "norm": "group", "accumulation_steps": 2, "loss_scaling": "mean_of_micro_means"},
]
CLAIM_LINE = re.compile(r"lab run (\d+) claimed by")


def test_two_workers_train_every_run_exactly_once_with_the_results_of_an_in_process_run(make_worker, learner):
    workers = [make_worker(name).start() for name in ("left", "right")]
    configs = [validate_config(data)[0] for data in BATCH]
    runs = []
    for config in configs:
        runs.append(lab_run_submit(user=learner, config=config))  # sent to the broker on commit
        assert lab_run_enqueue(run_id=runs[-1].pk)  # and again at once, so the two workers race for it

    wait_for(lambda: not LabRun.objects.filter(status__in=LabRun.ACTIVE).exists(), 240, "the two workers' batch")

    finished = {run.pk: run for run in LabRun.objects.all()}
    assert {(run.status, run.attempts) for run in finished.values()} == {("succeeded", 1)}
    claims = Counter(int(found) for w in workers for found in CLAIM_LINE.findall(w.log_path.read_text()))
    assert claims == {run.pk: 1 for run in runs}  # one claim per run across both logs
    assert {run.worker.partition("@")[0] for run in finished.values()} == {"left", "right"}  # both did work

    from labs.training.loop import run_experiment  # torch: only this test process needs it, not the web

    for run, config in zip(runs, configs, strict=True):
        reference = run_experiment(config).to_dict()  # the same device choice as the worker's
        expected = [point["loss"] for point in reference["curve"]]
        trained = [point["loss"] for point in finished[run.pk].curve]
        assert trained == pytest.approx(expected, rel=1e-5), run.config
        assert finished[run.pk].metrics["final_loss"] == pytest.approx(reference["final_loss"], rel=1e-5)
