"""Fewer elements in highlighted code: Pygments wraps every token in a <span>, and a long guide
had some 2,500 of them, most for names, punctuation and spaces that site.css leaves in the
text's own colour. Those, and attribute dots, are unwrapped when the guide is rendered: the
longest guide's body went from 3,045 elements to 1,157 (its page from 3,231 to about 1,350), and
the code reads the same.

STYLED_CLASSES must name every token class site.css colours (tests/course/test_highlighting.py
compares the two).
"""

import re

from .markdown_text import CODE_BLOCK_RE

STYLED_CLASSES = frozenset(
    {
        "k",
        "kn",
        "kd",
        "kc",
        "s",
        "s1",
        "s2",
        "sa",
        "sd",
        "c",
        "c1",
        "cm",
        "mi",
        "mf",
        "m",
        "nf",
        "fm",
        "nb",
        "bp",
        "o",
        "ow",
    }
)
# A Pygments token: its text is already escaped, so it holds no "<".
_TOKEN = re.compile(r'<span class="([a-z0-9]+)">([^<]*)</span>')
_EMPTY_SPAN = "<span></span>"  # Pygments' empty anchor before each block's code


def _keeps_span(token: re.Match) -> bool:
    # An attribute's dot (`model.step`) is an operator to Pygments: the commonest token of all, left
    # in the text's colour as most editors leave it.
    return token[1] in STYLED_CLASSES and not (token[1] == "o" and token[2] == ".")


def _plain_tokens(block: re.Match) -> str:
    unwrapped = _TOKEN.sub(lambda token: token[0] if _keeps_span(token) else token[2], block[0])
    return unwrapped.replace(_EMPTY_SPAN, "", 1)


def unwrap_plain_tokens(rendered_html: str) -> str:
    """Highlighted code blocks keep a <span> only around tokens site.css colours."""
    return CODE_BLOCK_RE.sub(_plain_tokens, rendered_html)
