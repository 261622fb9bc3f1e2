"""The guides' figure extension point (course/figures.py): markers in the Markdown, placeholders
in the stored HTML, figures from whichever app registered a provider. course never imports labs."""

import ast
from pathlib import Path

import nh3
import pytest

from course import figures
from course.rendering import render_markdown

COURSE = Path(figures.__file__).resolve().parent
BODY = """Text before the figure.

{{ figure: memory-vs-n/memory }}

```python
{{ figure: not-a/figure }}
```

Text after it."""


class Drawings:
    """A provider drawing each figure as a paragraph that names it, and counting its calls."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, str]] = []

    def render(self, preset: str, name: str, language: str, request=None) -> str:
        self.calls.append((preset, name, language))
        return f'<p class="drawn">{preset}/{name} in {language}</p>'

    def state(self) -> str:
        return "state-1"


@pytest.fixture
def drawings():
    provider = Drawings()
    saved = list(figures._providers)
    figures._providers[:] = [provider]  # only this provider while the test runs
    yield provider
    figures._providers[:] = saved


def test_markers_outside_code_fences_are_found():
    assert figures.figure_markers(BODY) == [("memory-vs-n", "memory")]


def test_a_marker_becomes_a_placeholder_that_survives_sanitizing_and_stays_out_of_the_text():
    rendered = render_markdown(BODY)
    assert rendered.html.count('class="guide-figure-slot"') == 1
    assert 'title="figure:memory-vs-n/memory"' in rendered.html
    code = nh3.clean(rendered.html, tags=set())  # the highlighted code block's text
    assert "{{ figure: not-a/figure }}" in code and "figure:not-a" not in rendered.html  # shown as written
    without = render_markdown(BODY.replace("{{ figure: memory-vs-n/memory }}\n\n", ""))
    assert rendered.plain_text == without.plain_text  # narration and search read the same text as before


def test_the_registered_provider_draws_each_placeholder_in_the_pages_language(drawings):
    html = figures.fill_figures(render_markdown(BODY).html, "fr")
    assert '<p class="drawn">memory-vs-n/memory in fr</p>' in html and "guide-figure-slot" not in html
    assert drawings.calls == [("memory-vs-n", "memory", "fr")]
    assert figures.figures_state() == "state-1"


def test_without_a_provider_a_placeholder_leaves_nothing_behind():
    saved = list(figures._providers)
    figures._providers.clear()
    try:
        assert "guide-figure-slot" not in figures.fill_figures(render_markdown(BODY).html, "en")
    finally:
        figures._providers[:] = saved


def test_a_change_of_state_changes_the_cached_pages_content_hash(db, drawings):
    from course.page_cache import content_hash

    before = content_hash()
    drawings.state = lambda: "state-2"
    assert content_hash() != before


def test_labs_registers_its_provider_when_django_starts():
    from labs.explorable_figures import explorable_figures

    assert explorable_figures in figures._providers


def test_course_never_imports_labs():
    """labs sits above course: course offers the extension point and knows nothing of labs."""
    for path in COURSE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not any(name == "labs" or name.startswith("labs.") for name in names), path
