"""Charts as accessible SVG, drawn on the server: line charts of curves and bar charts of metrics.

Plain Python (no torch, no Django): callers pass translated text and a number formatter. Every chart
has a <title> and a <desc> that screen readers announce, axis labels and ticks as text, and a legend;
lines differ by dash as well as colour, markers by shape, so they read in greyscale and print. Text
is escaped here: the result is safe to put in a page.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

SERIES_COLORS = 8  # .series-0 … .series-7 in site.css, one set of colours per colour scheme
DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4", "3 1")
WIDTH, HEIGHT = 640, 360
MARGIN = {"left": 72, "right": 16, "top": 16, "bottom": 56}
LEGEND_ROW = 20
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
# Colours come from the page's style sheet, so a chart follows its light or dark scheme: each coloured
# part has a class that sets `color` and is drawn in currentColor (outside a page, in the text's colour).
GRID_OPEN = '<g class="chart-grid" stroke="currentColor" stroke-width="1">'
AXIS = 'class="chart-axis" stroke="currentColor"'  # a line's attributes

Formatter = Callable[[float, int], str]  # (tick value, decimals its axis needs) -> text


def plain_number(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}"


def tick_decimals(ticks: Sequence[float], log: bool = False) -> list[int]:
    """Decimals per tick: enough to tell neighbours apart (2.25, 2.30), none for whole steps."""
    if log:
        return [max(0, -math.floor(math.log10(t))) for t in ticks]
    step = abs(ticks[1] - ticks[0]) if len(ticks) > 1 else 1.0
    places = max(0, -math.floor(math.log10(step) + 1e-9))
    if places and round(step * 10**places) % 10 not in (0, 1, 2, 5):  # e.g. 0.25
        places += 1
    return [places] * len(ticks)


@dataclass(frozen=True)
class Series:
    label: str
    points: Sequence[tuple[float, float]]  # (x, y), x increasing
    marks: Sequence[tuple[float, float]] = ()  # a few points drawn as markers on the same axes (validation checks)


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    text: str  # the value as the caption and table write it (e.g. "1.2 MB")


def nice_ticks(low: float, high: float, count: int = 5, integer: bool = False) -> list[float]:
    """Round ticks covering [low, high], 1, 2 or 5 times a power of ten apart (whole with `integer`)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0]
    if high <= low:
        high = low + (abs(low) or 1.0)
    raw = (high - low) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if integer:
        step = max(1, round(step))
    first = math.floor(low / step) * step
    ticks = [round(first, 12)]
    while ticks[-1] < high - step * 1e-9:  # the last tick at or above the highest value
        ticks.append(round(first + len(ticks) * step, 12))
    return ticks


def log_ticks(low: float, high: float) -> list[float]:  # powers of ten covering [low, high], both positive
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    if last == first:
        last += 1
    return [10.0**e for e in range(first, last + 1)]


def _scale(low: float, high: float, start: float, end: float, log: bool = False) -> Callable[[float], float]:
    axis = math.log10 if log else (lambda value: value)
    low, high = axis(low), axis(high)
    span = (high - low) or 1.0
    return lambda value: start + (axis(value) - low) / span * (end - start)


def svg_open(id_prefix: str, title: str, desc: str, height: int) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="svg-chart" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-labelledby="{id_prefix}-title {id_prefix}-desc" '
        'font-family="system-ui, sans-serif" font-size="13" fill="currentColor">',
        f'<title id="{id_prefix}-title">{escape(title)}</title>',
        f'<desc id="{id_prefix}-desc">{escape(desc)}</desc>',
    ]


def svg_text(x: float, y: float, text: str, anchor: str = "middle", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{extra}>{escape(text)}</text>'


def _on_axis(value: float, log: bool) -> bool:
    return math.isfinite(value) and (value > 0 or not log)


def series_class(i: int) -> str:  # colours the i-th series' lines, bars and marks, drawn in currentColor
    return f"series-{i % SERIES_COLORS}"


def _dash(i: int) -> str:
    dash = DASHES[i % len(DASHES)]
    return f' stroke-dasharray="{dash}"' if dash else ""


MARKERS = (  # a series' marks, by its place: circle, square, diamond, triangle, triangle down
    lambda x, y: f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5"/>',
    lambda x, y: f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8"/>',
    lambda x, y: f'<path d="M{x:.1f} {y - 5.5:.1f}l5.5 5.5-5.5 5.5-5.5-5.5z"/>',
    lambda x, y: f'<path d="M{x:.1f} {y - 5:.1f}l5 9h-10z"/>',
    lambda x, y: f'<path d="M{x:.1f} {y + 5:.1f}l5-9h-10z"/>',
)


def _marker(i: int, cx: float, cy: float, styled: bool) -> str:
    """The i-th series' marker centred on (cx, cy); a circle for every series when not `styled`."""
    return MARKERS[i % len(MARKERS) if styled else 0](cx, cy)


def line_chart(
    series: Sequence[Series],
    *,
    id_prefix: str,
    title: str,
    desc: str,
    x_label: str,
    y_label: str,
    log_y: bool = False,
    styled: bool = True,
    fmt: Formatter = plain_number,
) -> str:
    """Curves on shared axes, a legend below. Not `styled`: lines solid and markers round (colour alone)."""
    drawn = [[(x, y) for x, y in s.points if _on_axis(y, log_y)] for s in series]
    marked = [[(x, y) for x, y in s.marks if _on_axis(y, log_y)] for s in series]
    points = [point for line in (*drawn, *marked) for point in line]
    dash = _dash if styled else (lambda i: "")
    left, right, top, bottom = MARGIN["left"], WIDTH - MARGIN["right"], MARGIN["top"], HEIGHT - MARGIN["bottom"]
    parts = svg_open(id_prefix, title, desc, HEIGHT + LEGEND_ROW * len(series))
    if points:
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        x_ticks = nice_ticks(min(xs), max(xs), integer=all(float(v).is_integer() for v in xs))
        # The data's own range, not from zero: curves that nearly coincide must be seen apart.
        y_ticks = log_ticks(min(ys), max(ys)) if log_y else nice_ticks(min(ys), max(ys))
        x = _scale(x_ticks[0], x_ticks[-1], left, right)
        y = _scale(y_ticks[0], y_ticks[-1], bottom, top, log=log_y)
        parts.append(GRID_OPEN)
        parts += [f'<line x1="{left}" y1="{y(t):.1f}" x2="{right}" y2="{y(t):.1f}"/>' for t in y_ticks]
        parts.append("</g>")
        parts.append(f'<line {AXIS} x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>')
        parts.append(f'<line {AXIS} x1="{left}" y1="{top}" x2="{left}" y2="{bottom}"/>')
        for value, decimals in zip(y_ticks, tick_decimals(y_ticks, log_y), strict=True):
            parts.append(svg_text(left - 6, y(value) + 4, fmt(value, decimals), "end"))
        for value, decimals in zip(x_ticks, tick_decimals(x_ticks), strict=True):
            parts.append(svg_text(x(value), bottom + 18, fmt(value, decimals)))
        for i, (line, marks) in enumerate(zip(drawn, marked, strict=True)):
            if line:
                path = " ".join(f"{x(px):.1f},{y(py):.1f}" for px, py in line)
                parts.append(
                    f'<polyline class="{series_class(i)}" fill="none" stroke="currentColor" stroke-width="2" '
                    f'stroke-linejoin="round"{dash(i)} points="{path}"/>'
                )
            if marks:
                parts.append(f'<g class="{series_class(i)}" fill="currentColor">')
                parts += [_marker(i, x(mx), y(my), styled) for mx, my in marks]
                parts.append("</g>")
    parts.append(svg_text((left + right) / 2, bottom + 40, x_label))
    middle = (top + bottom) / 2
    parts.append(svg_text(16, middle, y_label, extra=f' transform="rotate(-90 16 {middle:.1f})"'))
    for i, s in enumerate(series):  # the legend
        row = HEIGHT + i * LEGEND_ROW
        parts.append(
            f'<line x1="{left}" y1="{row - 4}" x2="{left + 28}" y2="{row - 4}" class="{series_class(i)}" '
            f'stroke="currentColor" stroke-width="3"{dash(i)}/>'
        )
        if s.marks:  # the sample shows the series' marker too
            parts.append(
                f'<g class="{series_class(i)}" fill="currentColor">{_marker(i, left + 14, row - 4, styled)}</g>'
            )
        parts.append(svg_text(left + 36, row, s.label, "start"))
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(
    bars: Sequence[Bar],
    *,
    id_prefix: str,
    title: str,
    desc: str,
    value_label: str,
    log: bool = False,
    fmt: Formatter = plain_number,
) -> str:
    """Horizontal bars, one per run, labelled with their values; `log` for errors from 1e-7 to 1e-1."""
    row, top, label_width = 34, MARGIN["top"], 180
    left, right, bottom = label_width + 8, WIDTH - 96, top + row * len(bars)
    parts = svg_open(id_prefix, title, desc, bottom + 60)
    values = [b.value for b in bars if _on_axis(b.value, log)]
    if values:
        ticks = log_ticks(min(values), max(values)) if log else nice_ticks(0.0, max(values))
        scale = _scale(ticks[0], ticks[-1], left, right, log=log)
        parts.append(GRID_OPEN)
        parts += [f'<line x1="{scale(t):.1f}" y1="{top}" x2="{scale(t):.1f}" y2="{bottom}"/>' for t in ticks]
        parts.append("</g>")
        for i, bar in enumerate(bars):
            y = top + i * row
            parts.append(svg_text(label_width, y + row / 2 + 4, bar.label, "end"))
            end = left  # zero on a log axis (a run compared with itself): no bar, but its value still shows
            if _on_axis(bar.value, log):
                end = scale(bar.value)
                parts.append(
                    f'<rect x="{left}" y="{y + 6}" width="{max(1.0, end - left):.1f}" height="{row - 12}" '
                    f'class="{series_class(i)}" fill="currentColor"/>'
                )
            parts.append(svg_text(end + 6, y + row / 2 + 4, bar.text, "start"))
        parts.append(f'<line {AXIS} x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}"/>')
        decimals = tick_decimals(ticks, log)
        parts += [svg_text(scale(t), bottom + 18, fmt(t, d)) for t, d in zip(ticks, decimals, strict=True)]
        parts.append(svg_text((left + right) / 2, bottom + 44, value_label))
    parts.append("</svg>")
    return "".join(parts)
