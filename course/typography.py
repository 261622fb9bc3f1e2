"""French typography for the French course: spaces a French reader expects and that must never
break a line. Pure functions, no Django: applied when content is synced (course/services.py renders
guide pages and their front matter, quizzes/services.py stores quiz texts), so pages pay nothing per
request. UI strings carry the same spaces in locale/fr/LC_MESSAGES/django.po itself.

In prose only, never in code, preformatted text, keys, math or attributes (so URLs are untouched):
- ; ! ? take a narrow no-break space (U+202F) before them, in place of a space or where there was
  none, when they end a clause (a space, closing punctuation or the end follows): "a?b", "x != y" and
  a URL's query stay as they are.
- : takes a no-break space (U+00A0) before it when a space or the end follows: 10:30, 1:2,
  https:// and :: stay as they are.
- « » hold a no-break space (U+00A0) on their inner side.
- A number written in groups ("10 000") and a number's % sign ("30 %") are joined by U+202F.

The content writes, and the tests check, what a rule here would get wrong too often: guillemets
rather than straight quotes (a straight quote may be code or an inch), the decimal comma (0.1 may
be part of a version number) and the grouping of a number written without spaces (35207 may name a
pull request). See content/AUTHORING.md.
"""

import hashlib
import html
import re
from pathlib import Path

from .markdown_text import CODE_CLASS, MATH_CLASS

NBSP = "\u00a0"  # espace insécable: before a colon, inside guillemets
NNBSP = "\u202f"  # espace fine insécable: before ; ! ?, between digit groups, before %
_SPACE = "[ \t\r\n\u00a0\u202f]"
# Joins the runs of prose of one HTML fragment, so each rule runs once over all of them; no rule
# reads across it (it is neither a space nor a mark), and HTML has no use for it (parsers drop it).
SEPARATOR = "\x00"

# A clause mark and the spaces before it; the character before those decides (`_clause_mark`).
CLAUSE_MARK_RE = re.compile(
    rf"(?=[ \t\r\n\u00a0\u202f;!?:]){_SPACE}*"
    rf"(?:(?P<mark>[;!?]+)(?=[\s)\]»”’.,…\x00]|$)|:(?=[\s\x00]|$))"
)
OPENING = "([{«“‘/:"  # after these a mark does not end a clause: "(?)", "::", "https://..?"
GUILLEMET_OPEN_RE = re.compile(rf"«{_SPACE}*")
GUILLEMET_CLOSE_RE = re.compile(rf"{_SPACE}*»")
DIGIT_GROUPS_RE = re.compile(r"(?<![\d.,])\d{1,3}(?:[ \u00a0\u202f]\d{3})+(?!\d)")
PERCENT_RE = re.compile(r"(?<=\d)[ \u00a0\u202f]?%")

# HTML: what lies between tags is prose, unless it is inside an element that is code or math.
TAG_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
CLASS_RE = re.compile(r"""\bclass\s*=\s*["']([^"']*)["']""")
CODE_TAGS = {"code", "pre", "kbd", "samp", "var", "script", "style", "math", "svg", "textarea"}
CODE_CLASSES = {MATH_CLASS, CODE_CLASS, "guide-figure-slot"}
# Plain text (quiz texts, front matter): `code` spans are code.
CODE_SPAN_RE = re.compile(r"`[^`]*`")

FINGERPRINT = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def _clause_mark(match: re.Match) -> str:
    start = match.start()
    if start and match.string[start - 1] in OPENING:
        return match.group(0)
    return NNBSP + match.group("mark") if match.group("mark") else NBSP + ":"


def french_prose(text: str) -> str:
    """Prose (no markup, no code; runs of it may be joined by SEPARATOR) set in French."""
    if "«" in text or "»" in text:
        text = GUILLEMET_CLOSE_RE.sub(NBSP + "»", GUILLEMET_OPEN_RE.sub("«" + NBSP, text))
    text = CLAUSE_MARK_RE.sub(_clause_mark, text)
    text = DIGIT_GROUPS_RE.sub(lambda m: re.sub("[ \u00a0]", NNBSP, m.group(0)), text)
    return PERCENT_RE.sub(NNBSP + "%", text)


def french_text(text: str) -> str:
    """A plain text in which `code` spans are code (quiz texts, a guide's front matter)."""
    text = text.replace(SEPARATOR, "")
    code = CODE_SPAN_RE.findall(text)
    prose = french_prose(SEPARATOR.join(CODE_SPAN_RE.split(text))).split(SEPARATOR)
    return "".join(piece for pair in zip(prose, [*code, ""], strict=True) for piece in pair)


def french_html(fragment: str) -> str:
    """HTML with its prose set in French. Tags and their attributes, and whole elements that are
    code or math, are kept as they are; the prose between them is set in one pass."""
    fragment = fragment.replace(SEPARATOR, "")
    prose, markup, position = [], [], 0
    while tag := TAG_RE.search(fragment, position):
        prose.append(fragment[position : tag.start()])
        position = _code_end(fragment, tag) if _is_code(tag) else tag.end()
        markup.append(fragment[tag.start() : position])
    prose.append(fragment[position:])
    joined = SEPARATOR.join(prose)
    if "&" in joined:  # entities (&amp; &#8617;) end in a semicolon that is no clause mark
        joined = html.escape(french_prose(html.unescape(joined)), quote=False)
    else:
        joined = french_prose(joined)
    return "".join(piece for pair in zip(joined.split(SEPARATOR), [*markup, ""], strict=True) for piece in pair)


def _is_code(tag: re.Match) -> bool:
    if tag.group(1) or tag.group(3).rstrip().endswith("/"):
        return False
    classes = CLASS_RE.search(tag.group(3))
    return tag.group(2).lower() in CODE_TAGS or bool(classes and set(classes.group(1).split()) & CODE_CLASSES)


def _code_end(fragment: str, opening: re.Match) -> int:
    """Where the code element opened by `opening` ends (after its closing tag, or at the end)."""
    depth = 1
    for tag in re.finditer(rf"<(/?){opening.group(2)}\b[^>]*>", fragment[opening.end() :], re.IGNORECASE):
        depth += -1 if tag.group(1) else 1
        if depth == 0:
            return opening.end() + tag.end()
    return len(fragment)


def typeset_hash(source_hash: str) -> str:
    """The hash French text is stored under: its source's and these rules' (a changed rule sets
    every French page and quiz again when content is next synced)."""
    return hashlib.sha256(f"{source_hash}\n{FINGERPRINT}".encode()).hexdigest()
