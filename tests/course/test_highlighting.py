"""Highlighted code keeps a <span> only where site.css gives the token a colour (course/highlighting.py)."""

import html
import re
from pathlib import Path

import markdown

from course.highlighting import STYLED_CLASSES, unwrap_plain_tokens
from course.rendering import EXTENSION_CONFIGS, EXTENSIONS, render_markdown

SITE_CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "site.css"
CODE = """```python
for step, batch in enumerate(loader):
    loss = model(batch).mean() / accumulation_steps  # scaled
    if (step + 1) % accumulation_steps == 0:
        optimizer.step()
        print(f"step {step}: {loss.item():.3f}")
```
"""


def pygments_html(source: str) -> str:
    return markdown.Markdown(extensions=EXTENSIONS, extension_configs=EXTENSION_CONFIGS).convert(source)


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_the_classes_kept_are_exactly_those_site_css_colours():
    coloured = set(re.findall(r"\.codehilite \.([a-z0-9]+)\b", SITE_CSS.read_text()))
    assert coloured == STYLED_CLASSES


def test_code_keeps_its_text_and_its_coloured_tokens_with_far_fewer_elements():
    before = pygments_html(CODE)
    after = unwrap_plain_tokens(before)
    assert text_of(after) == text_of(before)
    assert '<span class="k">for</span>' in after and '<span class="c1"># scaled</span>' in after
    assert '<span class="n">' not in after and '<span class="p">' not in after and "<span></span>" not in after
    assert "optimizer.step()" in after and '<span class="o">%</span>' in after  # a dot is plain, % coloured
    assert after.count("<span") * 2 < before.count("<span")


def test_spans_outside_code_blocks_are_left_alone():
    prose = '<p>Formula <span class="arithmatex">\\(N\\)</span> and <span class="n">x</span></p>'
    assert unwrap_plain_tokens(prose) == prose


def test_a_rendered_guide_has_no_span_without_a_colour_in_its_code():
    runnable = CODE.replace("```python", "``` { .python .runnable }")  # a block the tests run (AUTHORING.md)
    body = render_markdown("Some text.\n\n" + CODE + "\n" + runnable).html
    assert body.count("codehilite") == 2 and 'class="runnable codehilite"' in body
    classes = set(re.findall(r'<span class="([a-z0-9]+)">', body))
    assert classes and classes <= STYLED_CLASSES
