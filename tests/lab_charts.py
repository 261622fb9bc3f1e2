"""The run and compare pages' chart, drawn on the server (templates/labs/_curves.html), read back as
SVG: its lines, its validation markers and its texts, for the view tests and the browser tests."""

import re
import xml.etree.ElementTree as ET

from labs.svg import HEIGHT, MARGIN

SVG = "{http://www.w3.org/2000/svg}"
MARKERS = (f"{SVG}circle", f"{SVG}rect", f"{SVG}path")
PLOT_BOTTOM = HEIGHT - MARGIN["bottom"]  # the x axis: the legend's samples lie below it


def drawing(html: str) -> ET.Element:
    """The chart's <svg> in a page, a fragment or the #lab-curves box's own HTML."""
    match = re.search(r"(<svg[^>]*>.*?</svg>)", html[max(0, html.find('id="lab-curves"')) :], re.S)
    assert match, "no chart drawn"
    # A browser's innerHTML writes a no-break space (French before a colon) as &nbsp;, which XML lacks.
    return ET.fromstring(match.group(1).replace("&nbsp;", "\u00a0"))


def lines(svg: ET.Element) -> list[list[tuple[float, float]]]:
    """Each run's training curve: its points in the drawing's coordinates."""
    return [
        [tuple(map(float, point.split(","))) for point in line.get("points").split()]
        for line in svg.iter(f"{SVG}polyline")
    ]


def dashes(svg: ET.Element) -> list[str | None]:
    return [line.get("stroke-dasharray") for line in svg.iter(f"{SVG}polyline")]


def _centre(marker: ET.Element) -> tuple[float, float]:
    if marker.tag == f"{SVG}circle":
        return float(marker.get("cx")), float(marker.get("cy"))
    if marker.tag == f"{SVG}rect":
        return float(marker.get("x")) + 4, float(marker.get("y")) + 4
    x, y = re.match(r"M([\d.]+) ([\d.]+)", marker.get("d")).groups()  # a shape's apex, above or below its centre
    return float(x), float(y)


def marks(svg: ET.Element) -> list[list[tuple[str, tuple[float, float]]]]:
    """Each run's validation markers in the plot (not the legend's samples): (shape, centre)."""
    found = []
    for group in svg.iter(f"{SVG}g"):
        shown = [(m.tag.removeprefix(SVG), _centre(m)) for m in group if m.tag in MARKERS]
        shown = [(shape, centre) for shape, centre in shown if centre[1] <= PLOT_BOTTOM]
        if shown:
            found.append(shown)
    return found


def texts(svg: ET.Element) -> list[str]:
    return [t.text for t in svg.iter(f"{SVG}text")]


def y_label(svg: ET.Element) -> str:
    return next(t.text for t in svg.iter(f"{SVG}text") if (t.get("transform") or "").startswith("rotate"))
