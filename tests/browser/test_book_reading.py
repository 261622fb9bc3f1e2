"""A Hindi page of the course's book (course/book.py), as a reader shows it: Chromium opens the
chapter's XHTML straight from the EPUB, with the book's own style sheet and fonts. The Devanagari
text is drawn in the book's Noto Sans Devanagari, the formulas are laid out as MathML and the
figures are SVG; the screenshot is kept under test-artifacts/screenshots/."""

import mimetypes
import zipfile

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from course.book import current_book
from course.models import GuidePage
from tests import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db]

BOOK = "http://book.example/"  # answered from the EPUB itself: nothing is served


def test_a_hindi_chapter_of_the_book_renders_with_its_fonts_formulas_and_figures(page, settings, tmp_path, screenshot):
    from course.services import guides_sync
    from labs.presets import PRESETS

    settings.MEDIA_ROOT = tmp_path / "media"
    guides_sync()
    for slug in PRESETS:
        factories.reference_sweep(slug)
    call_command("build_book", "--language", "hi", stdout=open("/dev/null", "w"))
    book = zipfile.ZipFile(current_book("hi").path)

    def from_the_book(route) -> None:
        name = "EPUB/" + route.request.url.removeprefix(BOOK).split("#")[0]
        media_type = "application/xhtml+xml" if name.endswith(".xhtml") else mimetypes.guess_type(name)[0]
        route.fulfill(status=200, body=book.read(name), content_type=media_type or "font/woff2")

    page.route(f"{BOOK}**", from_the_book)
    page.goto(f"{BOOK}text/guide-01.xhtml")
    expect(page.locator("h1")).to_have_text(GuidePage.objects.get(language="hi", guide__order=1).title)
    page.evaluate("document.fonts.ready")
    loaded = page.evaluate(
        "() => [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.family.replaceAll('\"', ''))"
    )
    assert "Noto Sans Devanagari" in loaded  # the book's own font, not the machine's
    assert "DejaVu Math TeX Gyre" in loaded
    formula = page.locator("math").first
    assert formula.bounding_box()["width"] > 0  # laid out as MathML
    figure = page.locator("svg[role='img']").first
    figure.scroll_into_view_if_needed()
    assert figure.bounding_box()["height"] > 100
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, "book-hi-guide-1")
    figure.scroll_into_view_if_needed()
    screenshot(page, "book-hi-guide-1-figure")

    page.goto(f"{BOOK}text/solutions.xhtml")  # the solutions at the end, linked back to their exercises
    expect(page.locator("h1")).to_have_text("अभ्यासों के हल")
    assert page.locator("section.book-solution").count() >= 14
