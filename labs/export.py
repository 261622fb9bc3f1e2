"""What runs and presets look like outside the site: the API's JSON and the comparison exports."""

import csv
import io
from typing import Any

from labs.training.config import FIELDS
from labs.training.results import DIVERGED, STORED_METRICS

from .models import LabRun
from .presets import Preset

RUN_METRICS = (*STORED_METRICS, DIVERGED)  # every metric a run stores, served as stored
CURVE_COLUMNS = ("step", "loss", "grad_norm", "lr", "samples", "tokens", "seconds", "skipped", "loss_scale")


def run_payload(run: LabRun, *, curve: bool = True) -> dict[str, Any]:  # labs/schemas.py's LabRun
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
        "metrics": {name: run.metrics.get(name) for name in RUN_METRICS},
        "validation": run.validation,
        "reused_from": run.reused_from_id,
        "cancel_requested": run.cancel_requested,
        "error": run.error_message or None,
        "created_at": run.created_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
    }
    return payload | {"curve": run.curve_points()} if curve else payload


def preset_payload(preset: Preset) -> dict[str, Any]:
    runs = [{"label": label, "config": config} for label, config in preset.configs()]
    texts = {"title": str(preset.title), "summary": str(preset.summary), "look_for": str(preset.look_for)}
    return {"slug": preset.slug, **texts, "data_parallel": preset.data_parallel, "runs": runs}


def curves_csv(runs: list[LabRun]) -> str:
    """One row per step of every run, with its run's settings and metrics (a pivot table groups by any)."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(("run_id", "label", *FIELDS, *RUN_METRICS, *CURVE_COLUMNS))
    for run in runs:
        metrics = [run.metrics.get(name) for name in RUN_METRICS]
        about = [run.pk, run.label, *(run.config[name] for name in FIELDS), *metrics]
        for point in run.curve_points():
            cells = [*about, *(point.get(column) for column in CURVE_COLUMNS)]
            writer.writerow("" if value is None else value for value in cells)
    return out.getvalue()
