"""What a run looks like outside the site: the API's JSON and the comparison exports."""

import csv
import io
from typing import Any

from labs.training.results import DIVERGED

from .downsample import downsample_curve, drawn_number
from .models import LabRun

# The API's subset of the stored metrics (labs.training.results.STORED_METRICS): the ones a learner
# compares runs by. The rest (dtype, parameter count, how memory was measured, data-parallel costs)
# stays in the stored row for the site's pages, so the published API schema does not change with them.
PUBLIC_METRICS = (
    "final_loss",
    "val_loss",
    "val_accuracy",
    "samples_per_second",
    "tokens_per_second",
    "wall_seconds",
    "peak_activation_bytes",
    "grad_equivalence_error",
    DIVERGED,
)
CURVE_COLUMNS = ("step", "loss", "grad_norm", "lr", "samples", "tokens", "seconds")


def run_payload(run: LabRun, *, curve: bool = True) -> dict[str, Any]:
    """The API representation (its schema: labs/schemas.py)."""
    payload = {
        "id": run.pk,
        "status": run.status,
        "label": run.label,
        "preset": run.preset or None,
        "config": run.config,
        "code_version": run.code_version,
        "progress": {"done_steps": run.done_steps, "total_steps": run.total_steps, "percent": run.progress_percent},
        "device": run.device or None,
        "torch_version": run.torch_version or None,
        "metrics": {name: run.metrics.get(name) for name in PUBLIC_METRICS},
        "validation": run.validation,
        "reused_from": run.reused_from_id,
        "cancel_requested": run.cancel_requested,
        "error": run.error_message or None,
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }
    if curve:
        payload["curve"] = run.curve_points()
    return payload


def chart_payload(runs: list[LabRun]) -> dict[str, Any]:
    """The data block the charts draw (static/js/labs.js): compact points per run, downsampled
    (labs/downsample.py) so a dozen long runs stay a light page; the exports below keep every point.
    Each point is [step, samples, seconds, loss]; `validation` holds the validation loss in the same
    shape, placed on the training curve's samples and seconds at its step."""
    return {"runs": [_chart_run(run) for run in runs]}


def _chart_run(run: LabRun) -> dict[str, Any]:
    points = run.curve_points()
    at_step = {p.get("step"): p for p in points}
    validation = []
    for check in run.validation or []:
        trained = at_step.get(check.get("step"), {})
        seconds = drawn_number(trained.get("seconds"))
        validation.append([check.get("step"), trained.get("samples"), seconds, drawn_number(check.get("loss"))])
    return {
        "id": run.pk,
        "label": run.label,
        "status": run.status,
        "points": [
            [p.get("step"), p.get("samples"), drawn_number(p.get("seconds")), drawn_number(p.get("loss"))]
            for p in downsample_curve(points)
        ],
        "validation": validation,
    }


def curves_csv(runs: list[LabRun]) -> str:
    """One row per optimizer step of every run, ready for a spreadsheet."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(("run_id", "label", *CURVE_COLUMNS))
    for run in runs:
        for point in run.curve_points():
            writer.writerow((run.pk, run.label, *("" if point.get(c) is None else point.get(c) for c in CURVE_COLUMNS)))
    return out.getvalue()
