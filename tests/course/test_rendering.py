"""Markdown rendering keeps the course's formatting and neutralizes anything executable."""

from html.parser import HTMLParser

import pytest

from course.rendering import count_words, render_markdown, sanitize

XSS_PAYLOADS = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    '<svg onload="alert(1)"></svg>',
    '<iframe src="https://evil.example"></iframe>',
    '<div style="background:url(javascript:alert(1))">x</div>',
    '<p onclick="alert(1)">click</p>',
    "<style>body{display:none}</style>",
    '<form action="https://evil.example"><input name=x></form>',
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    '<a href="#" {: onclick="alert(1)" }>x</a>',
    "Text {: onmouseover=alert(1) }",
]


class _ActiveContent(HTMLParser):
    """Collects everything in parsed HTML that a browser could execute or load."""

    DANGEROUS_TAGS = {
        "script",
        "style",
        "iframe",
        "object",
        "embed",
        "form",
        "input",
        "svg",
        "math",
        "img",
        "link",
        "meta",
    }

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.DANGEROUS_TAGS:
            self.found.append(tag)
        for name, value in attrs:
            if name.startswith("on") or (name in {"style", "src", "srcdoc", "formaction"} and tag not in {"td", "th"}):
                self.found.append(f"{tag}[{name}]")
            if name == "href" and value and not value.startswith(("http://", "https://", "mailto:", "#", "/")):
                self.found.append(f"{tag}[href={value}]")


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_markdown_xss_payloads_are_neutralized(payload):
    html = render_markdown(f"## Title {{#t}}\n\n{payload}\n").html
    parser = _ActiveContent()
    parser.feed(html)
    assert parser.found == [], (payload, html)


def test_headings_keep_their_ids_and_feed_the_table_of_contents():
    rendered = render_markdown("## Overview {#overview}\n\ntext\n\n### Detail {#detail}\n\nmore\n")
    assert '<h2 id="overview">Overview</h2>' in rendered.html
    assert rendered.toc == [
        {"id": "overview", "title": "Overview", "children": [{"id": "detail", "title": "Detail", "children": []}]}
    ]


def test_tables_code_footnotes_and_math_survive_sanitizing():
    source = (
        "| N | micro |\n|---|---|\n| 4 | 16 |\n\n"
        "``` { .python .runnable }\nx = 1\n```\n\n"
        "Claim.[^1]\n\n[^1]: Source.\n\n"
        "$$\nB = m \\times N\n$$\n"
    )
    html = render_markdown(source).html
    assert "<table>" in html and "<td>16</td>" in html
    assert 'class="runnable codehilite"' in html
    assert 'class="footnote"' in html
    assert '<div class="arithmatex"><math display="block"><mrow><mi>B</mi><mo>=</mo>' in html


def test_code_and_math_stay_out_of_the_narrated_text():
    rendered = render_markdown("Words here.\n\n```python\nsecret_code()\n```\n\n$$\nx^2\n$$\n")
    assert "Words here" in rendered.plain_text
    assert "secret_code" not in rendered.plain_text and "x^2" not in rendered.plain_text


def test_reading_time_follows_the_word_count():
    rendered = render_markdown("word " * 450)
    assert rendered.word_count == 450
    assert rendered.reading_minutes == 3


def test_devanagari_words_are_counted_whole():
    assert count_words("ग्रेडिएंट संचय क्षितिज प्रमाणपत्र") == 4


def test_sanitize_drops_unknown_attributes_but_keeps_links():
    html = sanitize('<a href="https://pytorch.org" data-x="1" target="_top">PyTorch</a>')
    assert 'href="https://pytorch.org"' in html and "data-x" not in html and "target" not in html


def test_framework_tabs_render_as_radio_buttons_and_labels_and_authored_inputs_are_removed():
    source = (
        '=== "PyTorch"\n\n    ```python\n    a = 1\n    ```\n\n=== "Lightning"\n\n    ```python\n    b = 2\n    ```\n'
    )
    html = render_markdown(source + '\n<input type="text" name="q" value="x">\n').html
    assert html.count("<input") == 2 and 'type="text"' not in html and 'value="x"' not in html
    assert '<input checked="checked" id="__tabbed_1_1" name="__tabbed_1" type="radio">' in html
    assert '<label for="__tabbed_1_2">Lightning</label>' in html
    assert 'class="tabbed-set tabbed-alternate" data-tabs="1:2"' in html


def test_framework_tab_names_are_left_out_of_the_text_read_aloud_and_searched():
    tabs = (
        '=== "PyTorch"\n\n    ```python\n    a = 1\n    ```\n\n=== "Lightning"\n\n    ```python\n    b = 2\n    ```\n'
    )
    source = f"Before.\n\n{tabs}\nAfter.\n"
    text = render_markdown(source).plain_text
    assert "Before." in text and "After." in text
    assert "PyTorch" not in text and "Lightning" not in text
