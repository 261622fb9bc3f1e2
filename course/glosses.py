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

GLOSS_CLASS = "gloss"
# A no-break space keeps the gloss on the term's line (the sanitizer writes it as &nbsp;).
GLOSS_HTML = '{term}&nbsp;<span class="' + GLOSS_CLASS + '">({gloss})</span>'
GLOSS_SPAN_RE = re.compile(r'&nbsp;<span class="' + GLOSS_CLASS + r'">[^<]*</span>')
TAG_RE = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
CLASS_RE = re.compile(r"""\bclass\s*=\s*["']([^"']*)["']""")
VOID_TAGS = {"br", "hr", "img", "input", "wbr", "col", "source", "meta", "link"}
# Elements whose text is not prose a gloss belongs in.
SKIPPED_TAGS = {"code", "pre", "kbd", "samp", "a", "h1", "h2", "h3", "h4", "h5", "h6", "th", "summary", "sup"}
SKIPPED_CLASSES = {"arithmatex", "codehilite", "guide-figure-slot"}
# Quoted text is a title or someone's words ("An Empirical Model of Large-Batch Training"): left as
# written. A quote may span inline tags, so it is followed across text until its block ends.
QUOTE_RE = re.compile('["\u201c\u201d]')
BLOCK_TAGS = {"p", "li", "td", "dd", "dt", "blockquote", "div", "details", "caption"}


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
    glossary = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
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
    return re.compile(rf"(?<![\w.`/_-]){re.escape(term)}(?:s|es|ing|ed)?(?![\w(_/=-]|\.\w)", re.IGNORECASE)


def add_glosses(body_html: str, glosses: Glosses) -> str:
    """`body_html` with the first prose use of each glossed term followed by its gloss."""
    pending = {term: (term_pattern(term), gloss) for term, gloss in glosses.terms.items()}
    pieces, open_tags, position, quoted = [], [], 0, False
    for tag in TAG_RE.finditer(body_html):
        text = body_html[position : tag.start()]
        if not any(is_skipped for _name, is_skipped in open_tags):
            reserved, quoted = _reserved(text, glosses.allowed, quoted)
            text = _gloss_text(text, pending, reserved) if pending else text
        pieces.append(text)
        pieces.append(tag.group(0))
        position = tag.end()
        _track(open_tags, tag)
        quoted = quoted and tag.group(2).lower() not in BLOCK_TAGS
    pieces.append(body_html[position:])
    return "".join(pieces)


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
