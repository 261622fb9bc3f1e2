"""Formulas typeset when a page is rendered: each TeX formula becomes MathML, which the browser
draws itself (MathML Core), so a guide page needs no typesetting script and no math style sheet.

pymdownx.arithmatex finds the formulas (never in code) and wraps each, its TeX escaped, in a span
(inline, between \\( \\)) or a div (display, between \\[ \\]) of class MATH_CLASS; the wrapper stays,
so glosses, French typography and the words read aloud keep leaving formulas alone. latex2mathml
converts, after the page is sanitized, and each formula's MathML goes through a sanitizer of its own
that knows MathML alone: MathML written as raw HTML in a guide is dropped with the page's other
unknown tags, and no MathML reaches the page that this module did not make of TeX.
"""

import html
import re
from xml.etree.ElementTree import Element, tostring

import nh3
from latex2mathml.converter import convert_to_element

from .markdown_text import MATH_CLASS

WRAPPED_RE = re.compile(rf'<(?P<tag>span|div) class="{MATH_CLASS}">(?P<tex>.*?)</(?P=tag)>', re.S)
DELIMITERS = {"span": ("\\(", "\\)"), "div": ("\\[", "\\]")}
# In \text{}, \_ \% \& \# \$ \{ \} are the characters themselves; latex2mathml keeps the backslash.
TEXT_ESCAPE_RE = re.compile(r"\\([_%&#$\{\}])")
# A command latex2mathml does not know is kept as written ("\foo"): the reader would see TeX.
COMMAND_LEFT_RE = re.compile(r"\\[A-Za-z]+|\\.")
TOKEN_TAGS = {"mi", "mn", "mo", "ms", "mtext"}
ORDINARY_OPERATORS = {"/"}  # TeX sets 128/256 without the spaces MathML gives an operator

# What a formula's sanitizer lets through: MathML Core's elements (and menclose, which latex2mathml writes
# for \boxed), with their presentation attributes. No href: latex2mathml turns \href into one.
TAGS = {
    "math",
    "mrow",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "mspace",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mmultiscripts",
    "mprescripts",
    "mfrac",
    "msqrt",
    "mroot",
    "mstyle",
    "mpadded",
    "mphantom",
    "menclose",
    "merror",
    "mtable",
    "mtr",
    "mtd",
}
PRESENTATION_ATTRIBUTES = {
    "math": {"display"},
    "mo": {"stretchy", "symmetric", "largeop", "movablelimits", "form", "fence", "separator", "lspace", "rspace"}
    | {"minsize", "maxsize"},
    "mover": {"accent"},
    "munder": {"accentunder"},
    "munderover": {"accent", "accentunder"},
    "mfrac": {"linethickness"},
    "mspace": {"width", "height", "depth"},
    "mpadded": {"width", "height", "depth", "lspace", "voffset"},
    "mstyle": {"displaystyle", "scriptlevel"},
    "mtable": {"columnalign", "rowalign", "columnspacing", "rowspacing", "columnlines", "rowlines", "frame"},
    "mtd": {"columnalign", "rowalign", "columnspan", "rowspan"},
    "menclose": {"notation"},
}
TOKEN_ATTRIBUTES = {"mathvariant"}
ATTRIBUTES = {
    tag: PRESENTATION_ATTRIBUTES.get(tag, set()) | (TOKEN_ATTRIBUTES if tag in TOKEN_TAGS else set()) for tag in TAGS
}


class FormulaError(ValueError):
    """A formula that cannot be set in MathML (a TeX error, or a command latex2mathml lacks)."""


def to_mathml(tex: str, display: bool) -> str:
    """One formula's TeX (no delimiters) as a <math> element."""
    try:
        math = convert_to_element(tex, display="block" if display else "inline")
    except Exception as exc:  # latex2mathml's errors share no base class but Exception
        raise FormulaError(f"{tex!r}: {type(exc).__name__} {exc}".strip()) from None
    for element in math.iter():
        _settle_text(element, tex)
        if element.tag == "mo" and (element.text or "").isalpha():
            element.tag = "mi"  # \operatorname{tr}, \min: a function's name, spaced as \log is (no operator spacing)
    for element in math.iter():
        _ordinary_when_grouped(element)
    del math.attrib["xmlns"]  # in HTML, <math> is MathML by itself
    return nh3.clean(tostring(math, encoding="unicode"), tags=TAGS, attributes=ATTRIBUTES)


def _settle_text(element: Element, tex: str) -> None:
    """Makes an element's text plain: latex2mathml writes characters as references (&#x02211;),
    which `tostring` would escape again, and keeps \text's escapes. A command left as written
    is an error: the reader would see TeX."""
    if element.text is None:
        return
    text = TEXT_ESCAPE_RE.sub(r"\1", element.text) if element.tag == "mtext" else element.text
    left = COMMAND_LEFT_RE.search(text)
    if left and element.tag in TOKEN_TAGS:
        raise FormulaError(f"{tex!r}: latex2mathml does not know {left.group(0)}")
    element.text = html.unescape(text)


def _ordinary_when_grouped(element: Element) -> None:
    """In TeX, braces around a lone operator make it an ordinary symbol, without the space an
    operator takes: the French decimal comma 0{,}05 is one number, not "0, 05". A slash is ordinary too."""
    if element.tag == "mrow" and len(element) == 1 and element[0].tag == "mo":
        element = element[0]
    elif not (element.tag == "mo" and element.text in ORDINARY_OPERATORS):
        return
    element.set("lspace", "0")
    element.set("rspace", "0")


def typeset_formulas(body_html: str) -> tuple[str, list[str]]:
    """The HTML with every formula set in MathML, and the errors of those that could not be: such a
    formula stays as its TeX, shown as written (the content tests fail on any)."""
    errors = []

    def typeset(match: re.Match) -> str:
        tag = match.group("tag")
        opening, closing = DELIMITERS[tag]
        tex = html.unescape(match.group("tex")).strip().removeprefix(opening).removesuffix(closing)
        try:
            mathml = to_mathml(tex.strip(), display=tag == "div")
        except FormulaError as exc:
            errors.append(str(exc))
            return match.group(0)
        return f'<{tag} class="{MATH_CLASS}">{mathml}</{tag}>'

    return WRAPPED_RE.sub(typeset, body_html), errors
