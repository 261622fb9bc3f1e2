"""Figures in the guides: an extension point for the apps above `course`.

A guide places a figure with a line of its own in its Markdown body:

    {{ figure: memory-vs-n/memory }}

(a lab preset's slug and the figure's name). When content is synced, the line becomes an empty
placeholder element in the stored HTML (`markers_to_placeholders`, called by rendering.py); when
a guide page is shown, each placeholder is replaced with what the registered provider draws for
it in the page's language (`fill_figures`, the `{% drawfigures %}` template tag, which passes the
page's request along: a figure may follow the query string). `course` never imports the app that
draws them: labs registers its provider in its AppConfig.ready().

Cached guide pages include the provider's `state()` in their content hash (page_cache.py), so
the provider retires them with `page_cache.pages_changed()` when a figure's data changes (this
module never imports page_cache, which imports it).
"""

import re
from typing import Protocol

from django.http import HttpRequest

from .markdown_text import PROSE, classified_lines

MARKER_RE = re.compile(r"^\{\{\s*figure:\s*([a-z0-9]+(?:-[a-z0-9]+)*)/([a-z0-9]+(?:-[a-z0-9]+)*)\s*\}\}\s*$")
# Survives the sanitizer (a div with class and title) and is replaced before anyone sees it.
PLACEHOLDER = '<div class="guide-figure-slot" title="figure:{preset}/{name}"></div>'
PLACEHOLDER_RE = re.compile(
    r'<div class="guide-figure-slot" title="figure:([a-z0-9]+(?:-[a-z0-9]+)*)/([a-z0-9]+(?:-[a-z0-9]+)*)"></div>'
)


class FigureProvider(Protocol):
    def render(self, preset: str, name: str, language: str, request: HttpRequest | None = None) -> str:
        """Safe HTML for one figure in one language (never empty: words when there is no data).
        With the page's request, the figure may follow its query string (a learner's choice in an
        explorable figure, which a shared link carries) and who is signed in."""

    def render_static(self, preset: str, name: str, language: str) -> str:
        """The same figure for print (the course's books): no part to click, pick or predict."""

    def state(self) -> str:
        """Changes whenever some figure would be drawn differently."""


_providers: list[FigureProvider] = []


def register_figure_provider(provider: FigureProvider) -> None:
    if provider not in _providers:
        _providers.append(provider)


def unregister_figure_provider(provider: FigureProvider) -> None:
    if provider in _providers:
        _providers.remove(provider)


def figure_markers(source: str) -> list[tuple[str, str]]:
    """(preset, name) of every figure marker in a Markdown body, outside code and math blocks."""
    return [match.groups() for match in _marker_lines(source) if match]


def _marker_lines(source: str):
    for kind, line in classified_lines(source):
        yield MARKER_RE.match(line) if kind == PROSE else None


def markers_to_placeholders(source: str) -> str:
    """Each marker line becomes a placeholder block (blank lines around it: raw HTML for Markdown)."""
    lines = []
    for line, match in zip(source.splitlines(), _marker_lines(source), strict=True):
        if match:
            preset, name = match.groups()
            line = "\n" + PLACEHOLDER.format(preset=preset, name=name) + "\n"
        lines.append(line)
    return "\n".join(lines) + ("\n" if source.endswith("\n") else "")


def without_placeholders(body_html: str) -> str:
    """The HTML as if no marker were there: what search and narration read (so placing a figure
    does not make every narration be generated again)."""
    return re.sub(PLACEHOLDER_RE.pattern + r"\n*", "", body_html)


def fill_figures(body_html: str, language: str, request: HttpRequest | None = None) -> str:
    """The stored HTML with every placeholder replaced by its figure (nothing without a provider)."""

    def figure(match: re.Match) -> str:
        preset, name = match.groups()
        return "".join(provider.render(preset, name, language, request) for provider in _providers)

    return PLACEHOLDER_RE.sub(figure, body_html)


def fill_static_figures(body_html: str, language: str) -> str:
    """The stored HTML with every placeholder replaced by its figure as printed (course/book.py)."""

    def figure(match: re.Match) -> str:
        preset, name = match.groups()
        return "".join(provider.render_static(preset, name, language) for provider in _providers)

    return PLACEHOLDER_RE.sub(figure, body_html)


def figures_state() -> str:
    return "|".join(provider.state() for provider in _providers)
