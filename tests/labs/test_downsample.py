import csv
import io
import math
import random

from django.urls import reverse

from labs.charts import fmt_number
from labs.downsample import CHART_POINTS_PER_RUN, downsample_curve, lttb_indices
from labs.models import LabRun
from labs.selectors import MAX_COMPARED
from tests.lab_charts import drawing, lines

LONG_RUN_STEPS = 5_000


def long_curve(steps: int = LONG_RUN_STEPS, seed: int = 0) -> list[dict]:
    """A curve shaped like a real run's: noisy decaying loss, full-precision floats in every field."""
    rng = random.Random(seed)
    return [
        {
            "step": s,
            "loss": 2.3 * math.exp(-s / 900) + 0.05 + rng.gauss(0, 0.02),
            "grad_norm": rng.uniform(0.5, 3.0),
            "lr": 0.05,
            "samples": 64 * s,
            "tokens": None,
            "seconds": round(0.0123456 * s + rng.random(), 6),
        }
        for s in range(1, steps + 1)
    ]


def test_lttb_keeps_the_first_and_last_points_and_returns_exactly_n():
    xs = list(range(1000))
    ys = [math.sin(x / 30) for x in xs]
    for n in (3, 10, 400, 999):
        chosen = lttb_indices(xs, ys, n)
        assert len(chosen) == n
        assert chosen[0] == 0 and chosen[-1] == 999
        assert chosen == sorted(set(chosen))


def test_lttb_keeps_a_spike():
    xs = list(range(5000))
    ys = [1.0] * 5000
    ys[3217] = 50.0
    assert 3217 in lttb_indices(xs, ys, 100)


def test_a_short_curve_is_untouched():
    curve = long_curve(CHART_POINTS_PER_RUN)
    assert downsample_curve(curve) == curve
    assert lttb_indices([1, 2], [3, 4], 5) == [0, 1]


def test_a_long_curve_keeps_whole_points_in_step_order():
    curve = long_curve()
    drawn = downsample_curve(curve)
    assert len(drawn) == CHART_POINTS_PER_RUN
    assert drawn[0] is curve[0] and drawn[-1] is curve[-1]
    assert all(point in curve for point in drawn)  # samples and seconds stay with their step
    assert [p["step"] for p in drawn] == sorted(p["step"] for p in drawn)


def test_a_diverged_run_keeps_where_its_loss_went_missing():
    curve = long_curve()
    for point in curve[3000:]:
        point["loss"] = None  # the loss became NaN/inf at step 3001, recorded as None
    drawn = downsample_curve(curve)
    steps = [p["step"] for p in drawn]
    assert len(drawn) == CHART_POINTS_PER_RUN
    assert 3001 in steps  # the break starts where it did
    assert steps[0] == 1 and steps[-1] == LONG_RUN_STEPS
    assert [p["step"] for p in drawn if p["loss"] is None] == [3001, LONG_RUN_STEPS]


def test_a_run_with_no_loss_at_all_is_drawn_as_one_break():
    curve = [{"step": s, "loss": None} for s in range(1, 1001)]
    assert [p["step"] for p in downsample_curve(curve)] == [1, 1000]


def test_twelve_long_runs_make_a_light_compare_page_and_a_full_csv(learner_client, learner, make_run):
    runs = [
        make_run(
            learner,
            status=LabRun.Status.SUCCEEDED,
            curve=long_curve(seed=i),
            total_steps=LONG_RUN_STEPS,
            done_steps=LONG_RUN_STEPS,
        )
        for i in range(MAX_COMPARED)
    ]
    query = "?" + "&".join(f"run={run.pk}" for run in runs)

    page = learner_client.get(reverse("labs:compare") + query + "&x=seconds")
    assert page.status_code == 200
    assert len(page.content) < 200_000
    svg = drawing(page.content.decode())
    assert [len(line) for line in lines(svg)] == [CHART_POINTS_PER_RUN] * MAX_COMPARED
    # The drawing's description gives each run's last loss: the whole curve's, not a drawn point's.
    last = fmt_number(runs[0].curve[-1]["loss"], 4)
    assert f"{runs[0].label}: {last};" in svg.find("{http://www.w3.org/2000/svg}desc").text

    export = learner_client.get(reverse("labs:compare_csv") + query)
    rows = list(csv.DictReader(io.StringIO(export.content.decode())))
    assert len(rows) == MAX_COMPARED * LONG_RUN_STEPS
    for run in runs:
        assert sum(row["run_id"] == str(run.pk) for row in rows) == LONG_RUN_STEPS
    assert float(rows[1234]["loss"]) == runs[0].curve[1234]["loss"]  # exact numbers, not the drawn ones

    api = learner_client.get(reverse("api:labs_run", args=[runs[0].pk]))
    assert len(api.json()["curve"]) == LONG_RUN_STEPS
