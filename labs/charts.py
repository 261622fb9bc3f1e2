"""Loss charts and numbers in the page's language: the run and compare pages draw their runs as their
controls choose (a CurveView from the query string), the guides' figures with the default view.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.formats import get_format, number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .downsample import CHART_POINTS_PER_RUN, downsample_curve
from .models import LabRun
from .svg import Series, line_chart

CURVE_POINTS = 150  # at most, per run, in a guide's figure
Runs = list[LabRun]


def fmt_number(value: float | None, digits: int = 3) -> str:
    """Also the charts' tick formatter (labs/svg.py): (value, decimals) -> text."""
    if value is None or not math.isfinite(value):
        return _("diverged")
    return number_format(value, decimal_pos=digits)


def sci(value: float | None) -> str:
    if not isinstance(value, int | float):
        return "—"
    return f"{value:.1e}".replace(".", get_format("DECIMAL_SEPARATOR"))  # 1,3e-07 in French


# What a loss chart's x axis may be: a field of each curve point, and the axis's label.
X_AXES = {
    "step": gettext_lazy("optimizer step"),
    "samples": gettext_lazy("samples seen"),
    "seconds": gettext_lazy("seconds"),
}
SMOOTH_MAX = 0.95  # the moving average's largest weight: beyond it the line barely follows the loss
SMOOTH_STEP = 0.05  # the controls' steps


@dataclass(frozen=True)
class CurveView:
    """How a loss chart draws its runs: the guides' figures with the defaults, the pages by `curve_view`."""

    x: str = "step"  # one of X_AXES
    log_y: bool = False
    smooth: float = 0.0  # the weight of an exponential moving average of the training loss; 0: none
    validation: bool = False  # each run's validation checks drawn as markers
    styled: bool = True  # each run its own dash pattern and marker shape, not colour alone
    points: int = CURVE_POINTS  # at most, per run (labs/downsample.py)

    def query(self) -> list[tuple[str, str]]:  # as the controls' form sends it, for a link
        return [
            ("x", self.x),
            ("y", "log" if self.log_y else "linear"),
            ("smooth", f"{self.smooth:g}"),
            ("validation", "shown" if self.validation else "hidden"),
            ("lines", "styled" if self.styled else "solid"),
        ]


def curve_view(query) -> CurveView:
    """The chart as the query (a QueryDict) sets it. A value the controls cannot send falls back to its
    default, so an old or edited link still shows a chart; smoothing is kept to the controls' steps."""
    try:
        smooth = float(query.get("smooth") or 0)
    except ValueError:
        smooth = 0.0
    if not math.isfinite(smooth):
        smooth = 0.0
    smooth = round(round(min(SMOOTH_MAX, max(0.0, smooth)) / SMOOTH_STEP) * SMOOTH_STEP, 2)
    return CurveView(
        x=query.get("x") if query.get("x") in X_AXES else "step",
        log_y=query.get("y") == "log",
        smooth=smooth,
        validation=query.get("validation") != "hidden",
        styled=query.get("lines") != "solid",
        points=CHART_POINTS_PER_RUN,
    )


def _finite(value) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def smoothed(values: Sequence[float | None], weight: float) -> list[float | None]:
    """An exponential moving average corrected for its start, as TensorBoard's (the first points are not
    pulled toward zero). A missing loss stays missing and leaves the average alone."""
    average, count, found = 0.0, 0, []
    for value in values:
        if not _finite(value):
            found.append(value)
            continue
        average = weight * average + (1 - weight) * value
        count += 1
        found.append(average / (1 - weight**count))
    return found


def loss_series(run: LabRun, view: CurveView) -> Series:
    """The run's training loss against `view.x`, without a diverged run's missing losses, and its
    validation checks as marks (each at the training curve's x of its step) when the view has them."""
    curve = run.curve_points()
    if view.smooth:
        losses = smoothed([p.get("loss") for p in curve], view.smooth)
        curve = [{**p, "loss": loss} for p, loss in zip(curve, losses, strict=True)]
    points = downsample_curve(curve, view.points)
    line = [(p[view.x], p["loss"]) for p in points if _finite(p.get("loss")) and _finite(p.get(view.x))]
    marks = []
    if view.validation:
        at_step = {p.get("step"): p for p in curve}
        for check in run.validation or []:
            x = check.get("step") if view.x == "step" else at_step.get(check.get("step"), {}).get(view.x)
            if _finite(x) and _finite(check.get("loss")):
                marks.append((x, check["loss"]))
    return Series(run.label, line, marks)


def loss_chart(
    runs: Runs, *, key: str, title: str, desc: str, view: CurveView = CurveView(), log_if_wide: bool = False
) -> str:
    """The runs' training loss as `view` says; with `log_if_wide`, on a log axis when losses span over 100×."""
    series = [loss_series(run, view) for run in runs]
    losses = [y for s in series for _x, y in s.points if y > 0]
    log_y = view.log_y or (log_if_wide and bool(losses) and max(losses) / min(losses) > 100)
    y_label = _("loss") if any(s.marks for s in series) else _("training loss")  # validation loss too
    return line_chart(
        series,
        id_prefix=key,
        title=title,
        desc=desc,
        x_label=str(X_AXES[view.x]),
        y_label=y_label + (f" ({_('logarithmic')})" if log_y else ""),
        log_y=log_y,
        styled=view.styled,
        fmt=fmt_number,
    )


RUNS_CHART_DESC = {
    "step": gettext_lazy("Line chart of the training loss against the optimizer step for: %(labels)s."),
    "samples": gettext_lazy("Line chart of the training loss against the samples seen for: %(labels)s."),
    "seconds": gettext_lazy("Line chart of the training loss against the wall time in seconds for: %(labels)s."),
}


def _last_loss(run: LabRun) -> str:
    curve = run.curve_points()
    return fmt_number(curve[-1].get("loss"), 4) if curve else "—"


def runs_chart(runs: Runs, view: CurveView, *, key: str, title: str) -> str:
    """The run and compare pages' chart, described: the runs, the view's choices, each run's last loss."""
    sentences = [str(RUNS_CHART_DESC[view.x]) % {"labels": ", ".join(run.label for run in runs)}]
    if view.validation and any(run.validation for run in runs):
        sentences.append(_("Markers show each run's validation loss at its evaluations."))
    if view.log_y:
        sentences.append(_("The loss axis is logarithmic."))
    if view.smooth:
        sentences.append(smoothing_text(view))
    lasts = "; ".join(f"{run.label}: {_last_loss(run)}" for run in runs)
    sentences.append(_("Last training loss: %(values)s.") % {"values": lasts})
    return loss_chart(runs, key=key, title=title, desc=" ".join(sentences), view=view)


def smoothing_text(view: CurveView) -> str:
    return _("The training loss is smoothed: an exponential moving average of weight %(weight)s.") % {
        "weight": fmt_number(view.smooth, 2)
    }
