"""One declaration of a run's metric names (labs/training/results.py); the rest derive from it."""

from dataclasses import fields

from labs.export import RUN_METRICS
from labs.figure_kinds import MetricBars
from labs.figures import FIGURES
from labs.training.results import DIVERGED, STORED_METRICS, RunResult, stored_metrics

# RunResult fields that are not metrics: stored in their own LabRun columns, or only read by the
# bench (the split of the wall time), or never serialized (the model).
NOT_METRICS = {
    "config",
    "status",
    "steps_done",
    "curve",
    "validation",
    "device",
    "torch_version",
    "code_version",
    "validation_seconds",
    "metrics_seconds",
    "model",
}


def test_every_run_result_field_is_either_a_stored_metric_or_declared_not_one():
    names = [f.name for f in fields(RunResult)]
    assert set(STORED_METRICS) <= set(names), set(STORED_METRICS) - set(names)
    assert set(names) - set(STORED_METRICS) == NOT_METRICS
    assert len(set(STORED_METRICS)) == len(STORED_METRICS)


def _result(status: str) -> RunResult:
    values = {f.name: None for f in fields(RunResult)}
    values.update(status=status, final_loss=float("nan"), parameter_count=1234, dtype="float32", curve=[])
    return RunResult(**values)


def test_stored_metrics_keep_every_declared_name_and_whether_the_run_diverged():
    stored = stored_metrics(_result("diverged").to_dict())
    assert list(stored) == [*STORED_METRICS, DIVERGED]
    assert stored["final_loss"] is None  # non-finite: JSON-safe
    assert stored["parameter_count"] == 1234 and stored["dtype"] == "float32"
    assert stored[DIVERGED] is True
    assert stored_metrics(_result("finished").to_dict())[DIVERGED] is False


def test_the_api_serves_every_stored_metric_and_the_figures_name_only_stored_ones():
    assert RUN_METRICS == (*STORED_METRICS, DIVERGED)
    bars = [figure for figure in FIGURES.values() if isinstance(figure, MetricBars)]
    assert bars and {figure.metric for figure in bars} <= set(STORED_METRICS)
