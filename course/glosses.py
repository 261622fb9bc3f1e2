"""Hindi glosses: on a Hindi page, the first use of each English term is followed by its Hindi
word from content/glossary.yaml ("loss (हानि)"), so a Hindi-medium learner meets both once.

The glossary is the one source: guide files carry no hand-written glosses. Glosses are added to
the rendered HTML when a page is synced, in prose only (never in code, math, headings, links,
footnote marks or a disclosure's summary), before sanitizing. `plain_text_of` leaves them out, so
search, word counts and narration (and its audio files) stay what the page's own words make them.
"""

import hashlib
import html
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .markdown_text import CODE_CLASS, MATH_CLASS

GLOSS_CLASS = "gloss"
# A no-break space keeps the gloss on the term's line (the sanitizer writes it as &nbsp;).
GLOSS_HTML = '{term}&nbsp;<span class="' + GLOSS_CLASS + '">({gloss})</span>'
GLOSS_SPAN_RE = re.compile(r'&nbsp;<span class="' + GLOSS_CLASS + r'">[^<]*</span>')
TAG_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
CLASS_RE = re.compile(r"""\bclass\s*=\s*["']([^"']*)["']""")
VOID_TAGS = {"br", "hr", "img", "input", "wbr", "col", "source", "meta", "link"}
# Elements whose text is not prose a gloss belongs in (a table's cells are too terse for one: the
# learner meets the term again in the running text).
SKIPPED_TAGS = {"code", "pre", "kbd", "samp", "a", "h1", "h2", "h3", "h4", "h5", "h6", "table", "th", "summary", "sup"}
SKIPPED_CLASSES = {MATH_CLASS, CODE_CLASS, "guide-figure-slot"}
# Quoted text is a title or someone's words ("An Empirical Model of Large-Batch Training"): left as
# written. A quote may span inline tags, so it is followed across text until its block ends.
QUOTE_RE = re.compile('["\u201c\u201d]')
BLOCK_TAGS = {"p", "li", "td", "dd", "dt", "blockquote", "div", "details", "caption"}
# Where one line of text ends: words on either side of these tags are not one term.
BLOCK_BOUNDARY_TAGS = BLOCK_TAGS | {"h1", "h2", "h3", "h4", "h5", "h6", "th", "tr", "br", "pre", "ul", "ol", "summary"}
# A term joined to another English word is part of a longer term. An English word has two
# characters or more: a one-letter name (N, b, G) is a symbol, so "loss N से" is the term alone.
HYPHENS = "\\-\u2010\u2011"
ENGLISH_WORD = r"[A-Za-z][A-Za-z0-9_.]*[A-Za-z0-9]"
JOINED_BEFORE_RE = re.compile(rf"(?:(?<![A-Za-z0-9_.]){ENGLISH_WORD}[ \u00a0]+|[A-Za-z0-9][{HYPHENS}])$")
JOINED_AFTER_RE = re.compile(rf"[ \u00a0]+{ENGLISH_WORD}(?![A-Za-z0-9_])|[{HYPHENS}][A-Za-z0-9]")
CONTEXT_CHARS = 80


@dataclass(frozen=True)
class Glosses:
    """One language's glosses: the term as the page writes it -> its gloss, and the glossary's
    allowed phrases (a term inside one is already introduced, as in "ग्रेडिएंट संचय (gradient
    accumulation)")."""

    terms: dict[str, str] = field(default_factory=dict)
    allowed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.terms)

    def fingerprint(self) -> str:
        return json.dumps([sorted(self.terms.items()), list(self.allowed)], ensure_ascii=False)


def load_glosses(content_dir: Path, language: str) -> Glosses:
    """The glosses content/glossary.yaml gives for `language` (none when it has no glossary)."""
    path = Path(content_dir) / "glossary.yaml"
    if not path.exists():
        return Glosses()
    glossary = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) or {}
    terms = {
        str(term[language]): str(term["gloss"][language])
        for term in glossary.get("terms") or []
        if language in (term.get("gloss") or {})
    }
    allowed = tuple(str(phrase) for phrase in (glossary.get("allowed") or {}).get(language) or [])
    return Glosses(terms, allowed if terms else ())


def page_hash(source_hash: str, glosses: Glosses) -> str:
    """The hash a synced page is stored under: its source's, and its glosses' when it has some
    (a changed gloss renders the page again; pages without glosses keep their source's hash)."""
    if not glosses:
        return source_hash
    return hashlib.sha256(f"{source_hash}\n{glosses.fingerprint()}".encode()).hexdigest()


def term_pattern(term: str) -> re.Pattern:
    """The term as a whole word, with an English inflection (losses, gradients, trained), and not
    part of an identifier (loss_fn, loss.backward, micro-batch for batch)."""
    word = rf"(?<![\w.`/_{HYPHENS}]){re.escape(term)}(?:s|es|ing|ed)?(?![\w(_/={HYPHENS}]|\.\w)"
    return re.compile(word, re.IGNORECASE)


def add_glosses(body_html: str, glosses: Glosses) -> str:
    """`body_html` with the first prose use of each glossed term followed by its gloss."""
    pending = {term: (term_pattern(term), gloss) for term, gloss in glosses.terms.items()}
    runs, tags = _split(body_html)
    before, after = _neighbours(runs, tags)
    pieces, quoted = [], False
    for index, (text, is_skipped) in enumerate(runs):
        if not is_skipped:
            reserved, quoted = _reserved(text, glosses.allowed, quoted)
            reserved += _compounds(text, pending, before[index], after[index])
            text = _gloss_text(text, pending, reserved) if pending else text
        pieces.append(text)
        if index < len(tags):
            pieces.append(tags[index].group(0))
            quoted = quoted and tags[index].group(2).lower() not in BLOCK_TAGS
    return "".join(pieces)


def _split(body_html: str) -> tuple[list[tuple[str, bool]], list[re.Match]]:
    """The runs of text between tags, each with whether it lies in an element without glosses,
    and the tags between them (run i comes before tag i)."""
    runs, tags, open_tags, position = [], [], [], 0
    for tag in TAG_RE.finditer(body_html):
        runs.append((body_html[position : tag.start()], any(is_skipped for _name, is_skipped in open_tags)))
        tags.append(tag)
        position = tag.end()
        _track(open_tags, tag)
    runs.append((body_html[position:], any(is_skipped for _name, is_skipped in open_tags)))
    return runs, tags


def _neighbours(runs: list[tuple[str, bool]], tags: list[re.Match]) -> tuple[list[str], list[str]]:
    """For each run, the text a reader sees just before and just after it in the same block, across
    inline tags (`<strong>gradient</strong> norm` is one term), code included."""
    before, seen = [], ""
    for index, (text, _) in enumerate(runs):
        before.append(seen[-CONTEXT_CHARS:])
        seen = "" if index < len(tags) and _ends_block(tags[index]) else (seen + text)[-CONTEXT_CHARS:]
    after, seen = [""] * len(runs), ""
    for index in range(len(runs) - 1, -1, -1):
        after[index] = seen[:CONTEXT_CHARS]
        seen = "" if index > 0 and _ends_block(tags[index - 1]) else (runs[index][0] + seen)[:CONTEXT_CHARS]
    return before, after


def _ends_block(tag: re.Match) -> bool:
    return tag.group(2).lower() in BLOCK_BOUNDARY_TAGS


def _compounds(text: str, pending: dict[str, tuple[re.Pattern, str]], before: str, after: str) -> list[tuple[int, int]]:
    """Where in this run a pending term is only part of a longer English term: joined to another
    English word by a hyphen or a space ("micro-batch", "batch size", "effective batch", "learning
    rate warmup"). The gloss would name half a term there, so none goes there. Nor after a term the
    sentence itself puts in brackets after its Hindi word ("औसत (mean)"): it is glossed already."""
    reserved = []
    for pattern, _gloss in pending.values():
        for match in pattern.finditer(text):
            left = html.unescape(before + text[: match.start()])
            right = html.unescape(text[match.end() :] + after)
            joined = JOINED_BEFORE_RE.search(left) or JOINED_AFTER_RE.match(right)
            if joined or (left.endswith("(") and right.startswith(")")):
                reserved.append((match.start(), match.end()))
    return reserved


def _track(open_tags: list[tuple[str, bool]], tag: re.Match) -> None:
    closing, name, attributes = tag.group(1), tag.group(2).lower(), tag.group(3)
    if closing:
        names = [open_name for open_name, _ in open_tags]
        if name in names:
            del open_tags[len(names) - 1 - names[::-1].index(name) :]
        return
    if name in VOID_TAGS or attributes.rstrip().endswith("/"):
        return
    classes = set(CLASS_RE.search(attributes).group(1).split()) if CLASS_RE.search(attributes) else set()
    open_tags.append((name, name in SKIPPED_TAGS or bool(classes & SKIPPED_CLASSES)))


def _reserved(text: str, allowed: tuple[str, ...], quoted: bool) -> tuple[list[tuple[int, int]], bool]:
    """Where in this run of text no gloss goes (allowed phrases, quotations), and whether a
    quotation is still open at its end."""
    reserved = [(m.start(), m.end()) for phrase in allowed for m in re.finditer(re.escape(phrase), text)]
    start = 0 if quoted else None
    for mark in QUOTE_RE.finditer(text):
        opening = mark.group() == "\u201c" or (mark.group() == '"' and start is None)
        if opening and start is None:
            start = mark.start()
        elif not opening and start is not None:
            reserved.append((start, mark.end()))
            start = None
    if start is not None:
        reserved.append((start, len(text)))
    return reserved, start is not None


def _gloss_text(text: str, pending: dict[str, tuple[re.Pattern, str]], reserved: list[tuple[int, int]]) -> str:
    """Glosses the first use, in this run of text, of each term still pending (and forgets it)."""
    insertions = []
    for term, (pattern, gloss) in list(pending.items()):
        for match in pattern.finditer(text):
            if not any(start < match.end() and match.start() < end for start, end in reserved):
                insertions.append((match.start(), match.end(), gloss))
                del pending[term]
                break
    for start, end, gloss in sorted(insertions, reverse=True):
        text = text[:start] + GLOSS_HTML.format(term=text[start:end], gloss=html.escape(gloss)) + text[end:]
    return text


def without_glosses(body_html: str) -> str:
    """The HTML as the page's own words make it: what search, word counts and narration read."""
    return GLOSS_SPAN_RE.sub("", body_html)
