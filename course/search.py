"""Search across the guides of one language: few pages, so a scored scan of stored text is enough."""

import re
from dataclasses import dataclass

from .models import GuidePage

MAX_QUERY_LENGTH = 100
SNIPPET_RADIUS = 90


@dataclass(frozen=True)
class SearchHit:
    page: GuidePage
    score: int
    snippet: str


def query_terms(query: str) -> list[str]:
    return [t for t in query.lower()[:MAX_QUERY_LENGTH].split() if t][:8]


def _snippet(text: str, term: str) -> str:
    at = text.lower().find(term)
    if at < 0:
        return text[: SNIPPET_RADIUS * 2].strip() + "…"
    start, end = max(0, at - SNIPPET_RADIUS), min(len(text), at + len(term) + SNIPPET_RADIUS)
    # Line breaks become spaces; the no-break spaces of French typography stay (course/typography.py).
    excerpt = re.sub(r"[^\S\u00a0\u202f]+", " ", text[start:end]).strip()
    return ("…" if start else "") + excerpt + ("…" if end < len(text) else "")


def search_guides(query: str, language: str) -> list[SearchHit]:
    terms = query_terms(query)
    if not terms:
        return []
    hits = []
    pages = GuidePage.objects.filter(language=language, guide__is_published=True).select_related("guide")
    for page in pages:
        title, summary, body = page.title.lower(), page.summary.lower(), page.plain_text.lower()
        if not all(t in title or t in summary or t in body for t in terms):
            continue
        score = sum(5 * title.count(t) + 2 * summary.count(t) + body.count(t) for t in terms)
        hits.append(SearchHit(page, score, _snippet(page.plain_text, terms[0])))
    return sorted(hits, key=lambda hit: (-hit.score, hit.page.guide.order))
