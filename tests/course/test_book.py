"""The course's books (course/book.py, `manage.py build_book`): one EPUB 3 per language, valid by
EPUBCheck (Debian's), holding every guide's sections, its formulas as MathML, its figures as SVG
(drawn from reference sweeps of every preset) and its exercises' solutions at the end."""

import re
import subprocess
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import pytest
from django.core.management import call_command

from course.book import book_hash, books_state, current_book
from course.figures import PLACEHOLDER_RE
from course.models import GuidePage
from tests import factories

EPUBCHECK = Path("/usr/share/java/epubcheck.jar")  # Debian's epubcheck (bin/setup --test)
LANGUAGES = ("en", "hi", "fr")
NS = {
    "x": "http://www.w3.org/1999/xhtml",
    "m": "http://www.w3.org/1998/Math/MathML",
    "s": "http://www.w3.org/2000/svg",
    "o": "http://www.idpf.org/2007/opf",
}


@pytest.fixture
def books(db, settings, tmp_path) -> dict[str, Path]:
    """The real guides, a finished reference sweep of every preset, and the three books."""
    from course.services import guides_sync
    from labs.presets import PRESETS

    settings.MEDIA_ROOT = tmp_path / "media"
    guides_sync()
    for slug in PRESETS:
        factories.reference_sweep(slug)
    call_command("build_book", stdout=open("/dev/null", "w"))
    return {language: current_book(language).path for language in LANGUAGES}


def xhtml(book: zipfile.ZipFile, name: str) -> ElementTree.Element:
    return ElementTree.fromstring(book.read(name))


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_book_passes_epubcheck(books, language):
    assert EPUBCHECK.exists(), "epubcheck is missing: bin/setup --test installs Debian's package"
    result = subprocess.run(
        ["java", "-jar", str(EPUBCHECK), str(books[language])], capture_output=True, text=True, timeout=240
    )
    report = result.stdout + result.stderr
    assert result.returncode == 0, report
    assert "Messages: 0 fatals / 0 errors / 0 warnings" in report, report


def test_each_book_holds_every_guide_its_sections_formulas_figures_and_solutions(books):
    for language in LANGUAGES:
        pages = list(GuidePage.objects.filter(language=language).select_related("guide").order_by("guide__order"))
        assert len(pages) == 7
        with zipfile.ZipFile(books[language]) as book:
            assert book.namelist()[0] == "mimetype" and book.read("mimetype") == b"application/epub+zip"
            assert book.getinfo("mimetype").compress_type == zipfile.ZIP_STORED
            package = xhtml(book, "EPUB/package.opf")
            spine = [ref.get("idref") for ref in package.findall("o:spine/o:itemref", NS)]
            assert spine == ["title-page", "nav", *(f"guide-{n:02d}" for n in range(1, 8)), "solutions"]
            items = package.findall("o:manifest/o:item", NS)
            fonts = {item.get("href") for item in items if item.get("media-type") == "font/woff2"}
            assert "fonts/noto-sans-devanagari-devanagari-400-normal.woff2" in fonts
            nav = xhtml(book, "EPUB/nav.xhtml")
            toc = [a.get("href") for a in nav.iterfind(".//x:nav//x:a", NS)]
            solutions = xhtml(book, "EPUB/text/solutions.xhtml")
            for page in pages:
                name = f"guide-{page.guide.order:02d}.xhtml"
                chapter = xhtml(book, f"EPUB/text/{name}")
                assert chapter.find(".//x:h1", NS).text == page.title
                ids = {element.get("id") for element in chapter.iter() if element.get("id")}
                for section in page.toc:  # every section, in the chapter and in the table of contents
                    assert section["id"] in ids, (language, page.guide.slug, section["id"])
                    assert f"text/{name}#{section['id']}" in toc
                figures = len(PLACEHOLDER_RE.findall(page.body_html))
                assert len(chapter.findall(".//s:svg", NS)) >= figures > 0, (language, page.guide.slug)
                assert chapter.findall(".//x:pre", NS), "code blocks"
                assert not chapter.findall(".//x:details", NS) and not chapter.findall(".//x:form", NS)
                exercises = len(re.findall(r'<h3 id="exercise-\d+"', page.body_html))
                links = [a for a in chapter.iterfind(".//x:a", NS) if a.get("href", "").startswith("solutions.xhtml#")]
                assert len(links) == exercises >= 2, (language, page.guide.slug)
                formulas = len(chapter.findall(".//m:math", NS))
                for link in links:  # each solution is at the end, under its exercise's heading
                    anchor = link.get("href").split("#")[1]
                    solution = solutions.find(f".//x:section[@id='{anchor}']", NS)
                    assert solution is not None and "".join(solution.itertext()).strip()
                    formulas += len(solution.findall(".//m:math", NS))
                assert formulas == page.body_html.count("<math") > 0, (language, page.guide.slug)  # MathML, all


def test_build_book_skips_a_current_book_and_a_content_change_makes_a_new_one(books, settings):
    before = books_state()
    call_command("build_book", "--language", "en", stdout=open("/dev/null", "w"))
    assert books_state() == before and current_book("en").path == books["en"]
    page = GuidePage.objects.get(language="en", guide__order=1)
    page.body_html = page.body_html.replace("<p>", "<p>Changed. ", 1)
    page.save()
    call_command("build_book", "--language", "en", stdout=open("/dev/null", "w"))
    assert current_book("en").path.name.endswith(f"-{book_hash('en')}.epub")
    assert current_book("en").path != books["en"] and not books["en"].exists()  # the old one is gone
    with zipfile.ZipFile(current_book("en").path) as book:
        assert b"Changed. " in book.read("EPUB/text/guide-01.xhtml")
