"""The pages follow the reader's colour scheme (prefers-color-scheme): light text on a dark page in
dark mode, dark on light otherwise, with no light box left in the dark page, and figures (SVG drawn
on the server, labs/svg.py) whose text and lines keep their contrast in both. Contrast of the HTML
text itself is axe's check (test_accessibility.py, both schemes); axe does not check SVG text.
Dark screenshots go to test-artifacts/screenshots/."""

import re

import pytest

from tests.browser.conftest import GUIDE
from tests.browser.settled import click_when_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = ("guide", "quiz attempt", "lab run", "certificate verification")

# What the page shows in colour: its own background and text, every box with a background of its
# own, and each server-drawn figure's text (with what it stands on) and coloured lines.
COLOURS = """() => {
    const see = color => color !== "rgba(0, 0, 0, 0)" && color !== "transparent";
    const pageBackground = (() => {
        for (let e = document.body; e; e = e.parentElement) {
            const color = getComputedStyle(e).backgroundColor;
            if (see(color)) return color;
        }
        return "rgb(255, 255, 255)";
    })();
    const boxes = [...document.body.querySelectorAll("*")]
        .filter(e => e.getClientRects().length && see(getComputedStyle(e).backgroundColor))
        .map(e => [e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
            ? "." + e.className.split(" ").join(".") : ""), getComputedStyle(e).backgroundColor]);
    const figures = [...document.querySelectorAll("svg.svg-chart")].filter(svg => svg.getClientRects().length);
    const seriesFill = svg => {
        const box = svg.querySelector("rect.series-0");
        return box ? getComputedStyle(box).fill : null;
    };
    const texts = figures.flatMap(svg => [...svg.querySelectorAll("text")].map(t =>
        [t.textContent, getComputedStyle(t).fill, t.classList.contains("on-series") ? seriesFill(svg) : null]));
    const lines = figures.flatMap(svg => [...svg.querySelectorAll("[class^=series-]")].map(e => {
        const style = getComputedStyle(e);
        return style.stroke !== "none" ? style.stroke : style.fill;
    }));
    return {background: pageBackground, text: getComputedStyle(document.body).color, boxes, texts, lines};
}"""


def rgb(color: str) -> tuple[float, float, float]:
    return tuple(float(v) for v in re.findall(r"[\d.]+", color)[:3])


def luminance(color: str) -> float:
    """WCAG relative luminance of a computed CSS colour, "rgb(r, g, b)"."""

    def channel(value: float) -> float:
        value /= 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def show_first_figure(page) -> None:
    """A guide's figure sits behind a prediction: skipped, the figure shows."""
    skip = page.locator(".explorable-skip").first
    click_when_settled(skip)
    page.locator(".explorable svg.svg-chart").first.wait_for()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_pages_follow_the_colour_scheme_with_readable_text_code_and_figures(
    new_page, live_server, main_pages, screenshot, scheme
):
    page = new_page(user=main_pages.user, color_scheme=scheme)
    paths = {name: path for name, path, _login in main_pages.for_language("en")}
    figures_seen = 0
    for name in PAGES:
        page.goto(live_server.url + paths[name])
        if scheme == "dark":
            screenshot(page, f"dark-{name.replace(' ', '-')}-en")
        if name == "guide":
            show_first_figure(page)
        found = page.evaluate(COLOURS)
        background, text = luminance(found["background"]), luminance(found["text"])
        if scheme == "dark":
            assert background < 0.05 and text > 0.6, (name, found["background"], found["text"])
            light_boxes = [(box, color) for box, color in found["boxes"] if luminance(color) > 0.5]
            assert light_boxes == [], name
        else:
            assert background > 0.9 and text < 0.05, (name, found["background"], found["text"])
        for label, fill, under in found["texts"]:
            assert contrast(fill, under or found["background"]) >= 4.5, (name, label, fill, under)
        for color in found["lines"]:  # lines, bars and marks: 3:1 against the page (WCAG 1.4.11)
            assert contrast(color, found["background"]) >= 3, (name, color)
        figures_seen += bool(found["texts"])
    assert figures_seen >= 1  # the guide's figure at least was checked

    if scheme == "dark":  # the guide's code and its figure, where they are on the page
        page.goto(f"{live_server.url}/en/guides/{GUIDE}/")
        page.locator(".codehilite").first.scroll_into_view_if_needed()
        screenshot(page, "dark-guide-code-en")
        show_first_figure(page)
        screenshot(page, "dark-guide-figure-en")
