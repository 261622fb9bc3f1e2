"""Formulas are set in MathML when a page is rendered (course/mathml.py): no script typesets them in
the browser, and nothing of the markup reaches narration, search or the word count."""

import html
import re
import unicodedata

import pytest
from django.conf import settings
from fontTools.ttLib import TTFont

from course.content import load_all_guides
from course.glosses import load_glosses
from course.models import GuidePage
from course.rendering import render_markdown
from course.search import page_sections
from course.services import guides_sync, narration_sections

LANGUAGES = [code for code, _ in settings.LANGUAGES]
GUIDES = load_all_guides(settings.CONTENT_DIR, LANGUAGES)
WRAPPER_RE = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
MATHML_WORDS = ("math", "mrow", "mi", "mo", "mn", "mfrac", "msub", "mtext", "display")
MATH_FONT = settings.BASE_DIR / "static/vendor/fonts/dejavu-math-tex-gyre.woff2"
LETTER_MI_RE = re.compile(r"<mi>(\w)</mi>")  # a one-letter <mi>: the browser draws its italic form
ITALIC_GREEK = {0x3F5: 0x1D716, 0x3D1: 0x1D717, 0x3F0: 0x1D718, 0x3D5: 0x1D719, 0x3F1: 0x1D71A}


def italic(letter: str) -> str:
    """The Mathematical Italic character MathML Core draws for a one-letter <mi> (its math-auto transform)."""
    point = ord(letter)
    if letter == "h":
        return "\u210e"
    if "a" <= letter <= "z":
        return chr(0x1D44E + point - ord("a"))
    if "A" <= letter <= "Z":
        return chr(0x1D434 + point - ord("A"))
    if 0x391 <= point <= 0x3A9:
        return chr(0x1D6E2 + point - 0x391)
    if 0x3B1 <= point <= 0x3C9:
        return chr(0x1D6FC + point - 0x3B1)
    return chr(ITALIC_GREEK.get(point, point))


@pytest.mark.parametrize("slug", sorted(GUIDES))
def test_every_formula_of_every_guide_is_set_in_mathml(slug):
    for language, source in GUIDES[slug].items():
        rendered = render_markdown(source.body, load_glosses(settings.CONTENT_DIR, language), language)
        assert rendered.formula_errors == (), (slug, language)
        formulas = WRAPPER_RE.findall(rendered.html)
        assert formulas, (slug, language)
        tex_left = [inner for _tag, inner in formulas if not inner.startswith("<math")]
        assert tex_left == [], (slug, language)


def test_the_math_font_has_every_character_the_formulas_use():
    """The vendored math font is a cut of DejaVu Math TeX Gyre (bin/subset-math-font): a character it
    lacks would be drawn in another font, without the MATH table's spacing and sizes. Devanagari
    words in a formula's text come from Noto Sans Devanagari, next in the style sheet's list."""
    font = TTFont(MATH_FONT)
    assert "MATH" in font
    characters = font.getBestCmap()
    missing = set()
    for slug, sources in GUIDES.items():
        for language, source in sources.items():
            rendered = render_markdown(source.body, load_glosses(settings.CONTENT_DIR, language), language)
            for formula in re.findall(r"<math\b.*?</math>", rendered.html, re.S):
                text = html.unescape(re.sub(r"<[^>]+>", "", formula))
                drawn = set(text) | {italic(letter) for letter in LETTER_MI_RE.findall(formula)}
                missing |= {(slug, language, c) for c in drawn if ord(c) not in characters}
    missing = {item for item in missing if not unicodedata.name(item[2], "").startswith("DEVANAGARI")}
    assert missing == set(), "add these to bin/subset-math-font's RANGES and run it"


def test_a_formula_latex2mathml_cannot_set_is_reported_and_shown_as_written():
    rendered = render_markdown("Fine $x^2$, unknown $\\foo x$ and broken $\\frac{1}{$ here.\n")
    assert len(rendered.formula_errors) == 2
    assert "\\foo" in rendered.formula_errors[0] and "\\\\frac{1}{" in rendered.formula_errors[1]
    assert '<span class="arithmatex">\\(\\foo x\\)</span>' in rendered.html
    assert "<msup><mi>x</mi><mn>2</mn></msup>" in rendered.html


def test_text_escapes_grouped_commas_and_slashes_are_set_as_tex_sets_them():
    html = render_markdown("$\\text{train\\_batch\\_size}$ and $0{,}05$ and $a/b$\n", language="fr").html
    assert "<mtext>train_batch_size</mtext>" in html
    assert '<mn>0</mn><mrow><mo lspace="0" rspace="0">,</mo></mrow><mn>05</mn>' in html
    assert '<mi>a</mi><mo lspace="0" rspace="0">/</mo><mi>b</mi>' in html


def test_the_mathml_goes_through_the_sanitizer():
    html = render_markdown(
        "$\\href{javascript:alert(1)}{x}$ $\\style{color:red}{y}$ $\\text{<img src=x onerror=alert(1)>}$\n"
    ).html
    assert "<mi>x</mi>" in html and "<mi>y</mi>" in html
    assert "javascript" not in html and "color:red" not in html and "<img" not in html
    assert "<mtext>&lt;img&nbsp;src=x&nbsp;onerror=alert(1)&gt;</mtext>" in html  # shown as the text it is


def test_narration_search_and_word_count_read_no_formula():
    source = (
        "## Loss {#loss}\n\nDivide the loss $L_k / N$ by the count.\n\n"
        "$$\n\\nabla_\\theta \\frac{1}{N}\\sum_{k=1}^{N} L_k\n$$\n\n"
        "Then step the optimizer once.\n"
    )
    rendered = render_markdown(source)
    page = GuidePage(title="Title", summary="Summary.", body_html=rendered.html, toc=rendered.toc, language="en")
    texts = {
        "plain": rendered.plain_text,
        "narration": narration_sections(page)[0]["text"],
        "search": page_sections(page)[0].text,
    }
    for name, text in texts.items():
        words = set(re.findall(r"\w+", text))
        assert not words & set(MATHML_WORDS), name
        assert "∑" not in text and "∇" not in text and "L_k" not in text, name
        assert "Divide the loss by the count" in text and "Then step the optimizer once" in text, name
    assert rendered.word_count == len("Loss Divide the loss by the count Then step the optimizer once".split())


@pytest.mark.django_db
def test_pages_stored_by_an_older_renderer_are_rendered_again():
    guides_sync()
    page = GuidePage.objects.filter(language="en").select_related("guide").first()
    older = GUIDES[page.guide.slug]["en"].source_hash  # what a page stored before the renderer counted
    GuidePage.objects.filter(pk=page.pk).update(
        source_hash=older, body_html='<p><span class="arithmatex">\\(x\\)</span></p>'
    )
    assert guides_sync()["updated"] == 1
    page.refresh_from_db()
    assert "<math" in page.body_html and "\\(" not in page.body_html
