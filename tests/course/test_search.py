"""Search (course/search.py): each result links the section it matched, and Hindi words written in
Devanagari for the course's English terms find those terms."""

import re
import unicodedata

import pytest
import yaml
from django.conf import settings

from course.models import GuidePage
from course.search import Section, best_section, devanagari_spellings, page_sections, query_terms, search_guides


@pytest.fixture
def synced_content(db, guides_synced_for_module):
    """The real content, synced once for this module: its every database test reads it (tests/conftest.py)."""


pytestmark = pytest.mark.django_db


def result_links(html: str) -> list[str]:
    return re.findall(r'<li class="card"><h2><a href="([^"]+)"', html)


def test_a_result_links_the_section_its_terms_are_found_in(client, synced_content):
    html = client.get("/en/search/", {"q": "zero_grad"}).content.decode()
    links = result_links(html)
    assert links[0] == "/en/guides/the-accumulation-loop/#one-window"
    assert 'Section: <a href="/en/guides/the-accumulation-loop/#one-window">One window, step by step</a>' in html
    for link in links:  # every linked section exists on its page and holds the term
        path, section_id = link.split("#")
        page = GuidePage.objects.get(language="en", guide__slug=path.split("/")[3])
        section = next(s for s in page_sections(page) if s.id == section_id)
        assert "zero_grad" in section.text


def test_the_section_holding_most_of_the_terms_wins_then_the_most_uses():
    sections = [
        Section("a", "A", "", "loss loss loss loss"),
        Section("b", "B", "", "loss and memory"),
        Section("c", "C", "", "loss, memory, memory"),
    ]
    assert best_section(sections, [("loss",)]).id == "a"
    assert best_section(sections, [("loss",), ("memory",)]).id == "c"  # both terms in b and c; c uses more
    assert best_section(sections, [("मेमोरी", "memory")]).id == "c"
    assert best_section(sections, [("batch",)]) is None


def test_a_pages_sections_are_its_h2_and_h3_headings_in_order(synced_content):
    page = GuidePage.objects.get(language="hi", guide__slug="the-accumulation-loop")
    expected = [id_ for entry in page.toc for id_ in [entry["id"], *(c["id"] for c in entry["children"])]]
    sections = page_sections(page)
    assert [s.id for s in sections] == expected
    assert all(s.text for s in sections)
    assert sections[0].title == page.toc[0]["title"] and sections[0].text.startswith(page.toc[0]["title"])


# The sound written in Devanagari (the glossary's forbidden spelling), and the Hindi gloss.
@pytest.mark.parametrize("spelling, term", [("मेमोरी", "memory"), ("प्रवणता", "gradient")])
def test_a_hindi_query_in_devanagari_finds_the_english_term(client, synced_content, spelling, term):
    html = client.get("/hi/search/", {"q": spelling}).content.decode()
    links = result_links(html)
    english = [hit.page.guide.slug for hit in search_guides(term, "hi")]
    assert len(links) == len(english) > 0
    assert [link.split("/")[3] for link in links] == english
    assert f": {term}" in html  # said on the page: "also searched for the English term: memory"
    assert "0 guides" not in html


def test_the_query_is_normalised_so_a_nukta_typed_either_way_matches():
    """ज़ typed as one code point (U+095B) or as ज + nukta (U+091C U+093C): NFC makes them one."""
    precomposed, combining = "ऑप्टिमाइ\u095bर", "ऑप्टिमाइ\u091c\u093cर"
    assert precomposed != combining and unicodedata.normalize("NFC", precomposed) == combining
    assert query_terms(precomposed) == query_terms(combining) == [(combining, "optimizer")]


@pytest.mark.parametrize("query", ["l'accumulation", "l’accumulation"])
def test_a_french_query_finds_the_typographic_apostrophe_whichever_one_is_typed(client, synced_content, query):
    page = GuidePage.objects.get(language="fr", guide__slug="what-is-gradient-accumulation")
    assert "l’accumulation" in page.body_html and "l'accumulation" not in page.body_html  # as the guide writes it
    html = client.get("/fr/search/", {"q": query}).content.decode()
    assert any(link.startswith("/fr/guides/what-is-gradient-accumulation/") for link in result_links(html))


def test_several_words_can_make_one_spelling_and_punctuation_is_ignored():
    assert query_terms("सीखने की दर?") == [("सीखने की दर", "learning rate")]
    assert query_terms("“मेमोरी” बजट") == [("मेमोरी", "memory"), ("बजट",)]
    assert query_terms("हानि") == [("हानि", "loss")]


def test_every_devanagari_spelling_in_the_glossary_maps_to_its_english_term():
    glossary = yaml.safe_load((settings.CONTENT_DIR / "glossary.yaml").read_text(encoding="utf-8"))
    spellings = devanagari_spellings()
    for term in glossary["terms"]:
        english = tuple(term["en"].lower().split())
        for spelling in [*term.get("forbidden", {}).get("hi", []), term.get("gloss", {}).get("hi")]:
            if spelling and re.search("[\u0900-\u097f]", spelling):
                assert spellings[tuple(unicodedata.normalize("NFC", spelling).split())] == english


def test_the_mapping_comes_from_the_glossary_file(settings, tmp_path):
    settings.CONTENT_DIR = tmp_path
    (tmp_path / "glossary.yaml").write_text(
        "terms:\n  - {en: Warmup, hi: warmup, gloss: {hi: तैयारी}, forbidden: {hi: [वार्मअप], fr: [chauffe]}}\n",
        encoding="utf-8",
    )
    assert devanagari_spellings() == {("वार्मअप",): ("warmup",), ("तैयारी",): ("warmup",)}
    assert query_terms("वार्मअप") == [("वार्मअप", "warmup")]
    (tmp_path / "glossary.yaml").unlink()
    assert devanagari_spellings() == {} and query_terms("वार्मअप") == [("वार्मअप",)]


def test_a_query_in_devanagari_on_an_english_page_still_finds_the_term(synced_content):
    """The spelling is the learner's, not the page's: any language's search takes it."""
    assert [h.page.pk for h in search_guides("मेमोरी", "en")] == [h.page.pk for h in search_guides("memory", "en")]
