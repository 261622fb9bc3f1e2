"""Markdown to safe HTML, its formulas set in MathML. Rendered once when content is synced, never per request."""

import hashlib
import html
import math
import re
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path

import markdown
import nh3

from . import highlighting, markdown_text, mathml
from .figures import markers_to_placeholders, without_placeholders
from .glosses import Glosses, add_glosses, without_glosses
from .highlighting import unwrap_plain_tokens
from .markdown_text import CODE_CLASS, without_code_and_math
from .typography import french_html, french_text

# md_in_html: Markdown inside an exercise's <details markdown="1"> solution (content/AUTHORING.md).
# superfences (with pymdownx.highlight) instead of fenced_code: only it reads a fence indented inside
# a framework tab (pymdownx.tabbed, whose alternate style is radio inputs and labels switched by CSS).
EXTENSIONS = [
    "toc",
    "tables",
    "footnotes",
    "pymdownx.superfences",
    "pymdownx.highlight",
    "attr_list",
    "md_in_html",
    "pymdownx.arithmatex",
    "pymdownx.tabbed",
]
EXTENSION_CONFIGS = {
    "pymdownx.highlight": {"guess_lang": False, "css_class": CODE_CLASS},
    "pymdownx.tabbed": {"alternate_style": True},
    "pymdownx.arithmatex": {"generic": True},
    "toc": {"permalink": False},
}
ALLOWED_TAGS = {
    "a",
    "p",
    "br",
    "hr",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "strong",
    "em",
    "b",
    "i",
    "code",
    "pre",
    "span",
    "div",
    "blockquote",
    "sup",
    "sub",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "caption",
    "abbr",
    "kbd",
    "details",
    "summary",
    "input",
    "label",
}
ALLOWED_ATTRIBUTES = {
    "*": {"id", "class", "title"},
    "input": {"type", "name", "checked"},  # a framework tab's radio button (sanitize forces type=radio)
    "label": {"for"},
    "div": {"data-tabs"},
    "a": {"href"},
    "th": {"style"},
    "td": {"style"},
    "ol": {"start"},
}
WORDS_PER_MINUTE = 200
# The renderer's own rules and libraries: when they change, every page is rendered again at the next
# sync, not only those whose source changed (`rendered_hash`).
RENDERER_FINGERPRINT = hashlib.sha256(
    b"".join(Path(module.__file__).read_bytes() for module in (markdown_text, mathml, highlighting))
    + Path(__file__).read_bytes()
    + " ".join(version(name) for name in ("Markdown", "pymdown-extensions", "latex2mathml", "nh3")).encode()
).hexdigest()[:16]
# An <input> survives only as a framework tab's radio button (pymdownx.tabbed names them __tabbed_<set>_<tab>).
TAB_LABELS_RE = re.compile(r'<div class="tabbed-labels">.*?</div>', re.S)
NOT_A_TAB_INPUT_RE = re.compile(r'<input\b(?![^>]*\bid="__tabbed_\d+_\d+")[^>]*>', re.I)


@dataclass(frozen=True)
class RenderedGuide:
    html: str
    toc: list[dict]
    plain_text: str
    word_count: int
    reading_minutes: int
    formula_errors: tuple[str, ...] = ()  # formulas left as TeX: MathML could not be made of them


def rendered_hash(source_hash: str) -> str:
    """The hash a rendered page is stored under: its source's and the renderer's."""
    return hashlib.sha256(f"{source_hash}\n{RENDERER_FINGERPRINT}".encode()).hexdigest()


def sanitize(fragment: str) -> str:
    """Only structural tags and harmless attributes survive: no script, style, handlers or js: URLs."""
    return nh3.clean(
        NOT_A_TAB_INPUT_RE.sub("", fragment),
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        filter_style_properties={"text-align"},
        link_rel="noopener noreferrer",
        # A code block scrolls sideways on a narrow screen, so the keyboard must reach it (as
        # Docusaurus's code blocks do); focusable as served, site.js need not measure each one.
        set_tag_attribute_values={"input": {"type": "radio"}, "pre": {"tabindex": "0"}},
    )


def _toc_entries(tokens: list[dict], typeset=None) -> list[dict]:
    return [
        {
            "id": t["id"],
            "title": typeset(html.unescape(t["name"])) if typeset else html.unescape(t["name"]),
            "children": _toc_entries(t["children"], typeset),
        }
        for t in tokens
    ]


def plain_text_of(rendered_html: str) -> str:
    """Readable text for search and narration: code blocks and formulas are left out."""
    rendered_html = without_glosses(rendered_html)  # a Hindi page's glosses are for reading, not saying
    without_notes = re.sub(r"<sup[^>]*>.*?</sup>", "", without_code_and_math(rendered_html), flags=re.S)
    without_notes = TAB_LABELS_RE.sub(" ", without_notes)  # framework tabs' names, over code that is left out
    text = re.sub(r"</(p|h2|h3|li|tr|div)>", ".\n", without_notes)
    text = html.unescape(nh3.clean(text, tags=set()))
    text = re.sub(r"\.(\s*\.)+", ".", text)
    return re.sub(r"[ \t]+", " ", text).strip()


def count_words(text: str) -> int:
    """Whitespace-separated tokens holding a letter or digit (works for Devanagari, whose
    vowel signs are not word characters to `\\w`)."""
    return sum(1 for token in text.split() if any(ch.isalnum() for ch in token))


def render_markdown(source: str, glosses: Glosses | None = None, language: str = "") -> RenderedGuide:
    """`glosses`: the page language's, from the glossary (course/glosses.py); Hindi has some.
    A French page (`language` "fr") is set in French typography (course/typography.py)."""
    md = markdown.Markdown(extensions=EXTENSIONS, extension_configs=EXTENSION_CONFIGS)
    converted = unwrap_plain_tokens(md.convert(markers_to_placeholders(source)))
    if glosses:
        converted = add_glosses(converted, glosses)
    if language == "fr":
        converted = french_html(converted)
    # Formulas last: the sanitizer lets no MathML through but what course/mathml.py makes of TeX.
    body, formula_errors = mathml.typeset_formulas(sanitize(converted))
    text = plain_text_of(without_placeholders(body))
    words = count_words(text)
    return RenderedGuide(
        html=body,
        toc=_toc_entries(md.toc_tokens, french_text if language == "fr" else None),
        plain_text=text,
        word_count=words,
        reading_minutes=max(1, math.ceil(words / WORDS_PER_MINUTE)),
        formula_errors=tuple(formula_errors),
    )
