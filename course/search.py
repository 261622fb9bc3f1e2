"""Search across the guides of one language: few pages, so a scored scan of stored text is enough.

A query is normalised (Unicode NFC, lower case) and split into terms; a page matches when it holds
every term. A Hindi learner often types an English technical term the way it sounds, in
Devanagari ("मेमोरी"), while the course writes it in Latin script ("memory", content/glossary.yaml):
such a word also matches its English term. The glossary gives the pairs: each term's Devanagari
spellings (its `forbidden` ones in Hindi prose) and its Hindi gloss ("स्मृति"). Each result links
the section (h2 or h3) where its terms are found most.
"""

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml
from django.conf import settings
from django.core.cache import cache

from .models import GuidePage
from .rendering import plain_text_of

MAX_QUERY_LENGTH = 100
MAX_TERMS = 8
SNIPPET_RADIUS = 90
DEVANAGARI_RE = re.compile("[\u0900-\u097f]")
# Each heading's id opens a section; the text before the first heading belongs to none.
SECTION_RE = re.compile(r'<h[23] id="([^"]+)"[^>]*>')
EDGE_PUNCTUATION = "\"'“”‘’()[]{},.;:!?।॥"
SECTION_MARK = "\ue000"  # a private-use character, put before each heading and found in the plain text
SECTION_MARK_RE = re.compile(SECTION_MARK + "([^" + SECTION_MARK + "]+)" + SECTION_MARK)
PAGE_TEXT_TIMEOUT = 24 * 3600  # a page's text is keyed by its source hash, so an edit makes a new key


@dataclass(frozen=True)
class Section:
    id: str
    title: str
    text: str  # as written, for the snippet
    folded: str  # normalised, for matching


@dataclass(frozen=True)
class SearchHit:
    page: GuidePage
    score: int
    snippet: str
    section: Section | None = None  # where the terms are found most; None: the title or summary only


def normalized(text: str) -> str:
    """NFC (a nukta typed as its own mark or in a precomposed letter compares equal), lower case,
    and one apostrophe: French prose writes ’, a keyboard types ' (same length, so positions hold)."""
    return unicodedata.normalize("NFC", text).lower().replace("’", "'")


@lru_cache(maxsize=4)
def _glossary_spellings(path: str, modified: int) -> dict[tuple[str, ...], tuple[str, ...]]:
    glossary = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) or {}
    spellings: dict[tuple[str, ...], tuple[str, ...]] = {}
    for term in glossary.get("terms") or []:
        english = tuple(normalized(str(term["en"])).split())
        written = [*((term.get("forbidden") or {}).get("hi") or []), (term.get("gloss") or {}).get("hi")]
        for spelling in written:
            if spelling and DEVANAGARI_RE.search(str(spelling)):
                spellings[tuple(normalized(str(spelling)).split())] = english
    return spellings


def devanagari_spellings() -> dict[tuple[str, ...], tuple[str, ...]]:
    """(words of a Devanagari spelling) -> (words of its English term), from the glossary."""
    path = Path(settings.CONTENT_DIR) / "glossary.yaml"
    if not path.exists():
        return {}
    return _glossary_spellings(str(path), path.stat().st_mtime_ns)


def query_terms(query: str) -> list[tuple[str, ...]]:
    """The query's terms, each as the words it may be found as: itself, and for a Devanagari
    spelling of a glossary term, that term (several words of the query may form one spelling)."""
    words = [w.strip(EDGE_PUNCTUATION) for w in normalized(query[:MAX_QUERY_LENGTH]).split()]
    words = [w for w in words if w]
    spellings = devanagari_spellings()
    longest = max((len(key) for key in spellings), default=0)
    terms: list[tuple[str, ...]] = []
    i = 0
    while i < len(words):
        for size in range(min(longest, len(words) - i), 0, -1):
            english = spellings.get(tuple(words[i : i + size]))
            if english:
                terms.append((" ".join(words[i : i + size]), " ".join(english)))
                i += size
                break
        else:
            terms.append((words[i],))
            i += 1
    return terms[:MAX_TERMS]


def searched_as(terms: list[tuple[str, ...]]) -> list[str]:
    """The English terms a query's Devanagari words were also searched as (shown with the results)."""
    return [term[-1] for term in terms if len(term) > 1]


def _count(text: str, term: tuple[str, ...]) -> int:
    return sum(text.count(form) for form in term)


def _holds(text: str, term: tuple[str, ...]) -> bool:
    return any(form in text for form in term)


def _snippet(text: str, term: tuple[str, ...]) -> str:
    lowered = normalized(text)
    at = min((i for i in (lowered.find(form) for form in term) if i >= 0), default=-1)
    if at < 0:
        return text[: SNIPPET_RADIUS * 2].strip() + "…"
    start, end = max(0, at - SNIPPET_RADIUS), min(len(text), at + len(term[0]) + SNIPPET_RADIUS)
    # Line breaks become spaces; the no-break spaces of French typography stay (course/typography.py).
    excerpt = re.sub(r"[^\S\u00a0\u202f]+", " ", text[start:end]).strip()
    return ("…" if start else "") + excerpt + ("…" if end < len(text) else "")


@dataclass(frozen=True)
class PageText:
    """What a search reads of one page: its text as written (for snippets) and normalised."""

    plain: str
    title: str
    summary: str
    body: str
    sections: list[Section]


def page_texts(pages: list[GuidePage]) -> dict[int, PageText]:
    """Each page's PageText, from the cache framework for each version of a page: making it costs a
    few milliseconds (`plain_text_of` for the sections, the normalisation), and every search reads all
    the pages of a language. Only the pages not cached yet are read in full from the database."""
    keys = {page.pk: f"search-text:{page.pk}:{page.source_hash}" for page in pages}
    found = cache.get_many(keys.values())
    missing = [pk for pk, key in keys.items() if key not in found]
    made = {}
    for full in GuidePage.objects.filter(pk__in=missing).only("title", "summary", "plain_text", "body_html", "toc"):
        made[keys[full.pk]] = PageText(
            full.plain_text,
            normalized(full.title),
            normalized(full.summary),
            normalized(full.plain_text),
            page_sections(full),
        )
    if made:
        cache.set_many(made, PAGE_TEXT_TIMEOUT)
    found.update(made)
    return {pk: found[key] for pk, key in keys.items() if key in found}


def page_sections(page: GuidePage) -> list[Section]:
    """The page's h2 and h3 sections, each with its heading's id and title and its readable text
    (as `plain_text_of` reads the page: code blocks and formulas left out)."""
    titles = {}
    for entry in page.toc:
        titles[entry["id"]] = entry["title"]
        titles.update((child["id"], child["title"]) for child in entry.get("children", []))
    marked = SECTION_RE.sub(lambda m: f"{SECTION_MARK}{m.group(1)}{SECTION_MARK}{m.group(0)}", page.body_html)
    pieces = SECTION_MARK_RE.split(plain_text_of(marked))  # [before the first heading, id, text, ...]
    return [
        Section(section_id, titles.get(section_id, ""), text.strip(" .\n"), normalized(text))
        for section_id, text in zip(pieces[1::2], pieces[2::2], strict=True)
    ]


def best_section(sections: list[Section], terms: list[tuple[str, ...]]) -> Section | None:
    """The section holding the most of the terms, then the most uses of them; the earlier on a tie."""
    best, best_rank = None, (0, 0)
    for section in sections:
        rank = (sum(_holds(section.folded, t) for t in terms), sum(_count(section.folded, t) for t in terms))
        if rank > best_rank:
            best, best_rank = section, rank
    return best


def search_guides(query: str, language: str) -> list[SearchHit]:
    terms = query_terms(query)
    if not terms:
        return []
    pages = GuidePage.objects.filter(language=language, guide__is_published=True).select_related("guide")
    pages = list(pages.only("source_hash", "title", "guide__slug", "guide__order"))
    texts = page_texts(pages)
    hits = []
    for page in pages:
        text = texts[page.pk]
        if not all(_holds(text.title, t) or _holds(text.summary, t) or _holds(text.body, t) for t in terms):
            continue
        score = sum(5 * _count(text.title, t) + 2 * _count(text.summary, t) + _count(text.body, t) for t in terms)
        section = best_section(text.sections, terms)
        snippet = _snippet(section.text if section else text.plain, terms[0])
        hits.append(SearchHit(page, score, snippet, section))
    return sorted(hits, key=lambda hit: (-hit.score, hit.page.guide.order))
