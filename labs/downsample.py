"""Fewer points for drawing a curve: largest-triangle-three-buckets (LTTB, Steinarsson 2013), which
keeps the points that shape the line (spikes included): a dozen runs of 5,000 steps would put
megabytes in a page. Only the charts use this; exports and the API keep every point.
"""

from collections.abc import Sequence
from typing import Any

CHART_POINTS_PER_RUN = 400  # a shorter curve is drawn as it is

Point = dict[str, Any]


def lttb_indices(xs: Sequence[float], ys: Sequence[float], n: int) -> list[int]:
    """Indices of the `n` points that best keep the line's shape, first and last included."""
    count = len(xs)
    if n >= count:
        return list(range(count))
    if n < 3:
        return [0, count - 1][:n] if count > 1 else [0]
    chosen = [0]
    buckets = n - 2  # the inner points, split evenly (integer bounds: no float rounding at the end)

    def bound(b: int) -> int:
        return 1 + b * (count - 2) // buckets

    for b in range(buckets):
        start, end = bound(b), bound(b + 1)
        # The next bucket's mean; after the last bucket, the next "bucket" is the last point.
        after_start, after_end = (end, bound(b + 2)) if b + 1 < buckets else (count - 1, count)
        next_x = sum(xs[after_start:after_end]) / (after_end - after_start)
        next_y = sum(ys[after_start:after_end]) / (after_end - after_start)
        ax, ay = xs[chosen[-1]], ys[chosen[-1]]
        # The point making the largest triangle with the last chosen point and the next bucket's mean.
        best = max(
            range(start, end),
            key=lambda i: abs((ax - next_x) * (ys[i] - ay) - (ax - xs[i]) * (next_y - ay)),
        )
        chosen.append(best)
    chosen.append(count - 1)
    return chosen


def downsample_curve(curve: Sequence[Point], n: int = CHART_POINTS_PER_RUN) -> list[Point]:
    """At most about `n` whole points of a run's curve, chosen by (step, loss). A diverged run's missing
    losses (a break in the chart) are not shapes LTTB can rank: the first of each stretch is kept so
    the break stays, the others share what is left of `n` (so an alternating curve may keep more)."""
    if len(curve) <= n:
        return list(curve)
    last = len(curve) - 1
    missing = [p.get("loss") is None for p in curve]
    kept = {i for i, gap in enumerate(missing) if gap and (i in (0, last) or not missing[i - 1])}
    finite = [i for i, gap in enumerate(missing) if not gap]
    xs = [float(i if curve[i].get("step") is None else curve[i]["step"]) for i in finite]
    ys = [float(curve[i]["loss"]) for i in finite]
    kept.update(finite[j] for j in lttb_indices(xs, ys, max(n - len(kept), 2)))
    return [curve[i] for i in sorted(kept)]
