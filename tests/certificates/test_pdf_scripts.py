"""The certificate PDF prints names in every script the course meets, of any length the form allows,
inside the frame: no glyph missing, right-to-left names laid out right to left."""

import io
import itertools
import subprocess
import unicodedata
import xml.etree.ElementTree as ET
from datetime import UTC, datetime

import pypdf
import pytest
import uharfbuzz as hb

from certificates.models import Certificate
from certificates.pdf import certificate_pdf
from certificates.pdf_fonts import chain_for, face_for, missing_fonts

MM = 72 / 25.4  # points per millimetre
NAMES = {
    "latin with diacritics": "Zoë Ångström-Nguyễn Thị Minh Khai Łukasz Øster",
    "cyrillic with accents": "Ива́н Петро́вич Ёлкин-Щербако́в",
    "greek": "Αικατερίνη Παπαδοπούλου",
    "devanagari": "आशा क्षितिज वर्मा",
    "arabic with vowel marks": "مُحَمَّد بن عَبْد الله الهاشمي",
    "hebrew with points": "דָּוִד בֶּן־גּוּרְיוֹן",
    "chinese": "张伟 陳大文",
    "japanese": "山田 花子（やまだ はなこ）",
    "korean": "김민준 이서연",
    "tamil, from the other noto fonts": "முருகன் செல்வராஜ்",
    "thai, from the other noto fonts": "สมชาย ใจดี",
    "120 latin characters": ("Maria Fernanda de los Ángeles Concepción Gutiérrez-Villanueva y Rodríguez " * 2)[:120],
    "120 chinese characters": "张伟陳大文" * 24,
    "120 arabic characters": ("مُحَمَّد بن عَبْد الله الهاشمي " * 5)[:120].strip(),
}
LANGUAGES = ["en", "hi", "fr"]


def render(name: str, language: str = "en") -> bytes:
    certificate = Certificate(
        id="ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        name=name,
        language=language,
        score_percent=90,
        score_band="90–100%",
        issued_at=datetime(2026, 12, 1, tzinfo=UTC),
    )
    return certificate_pdf(certificate, f"https://course.example.org/en/certificates/{certificate.display_id}/")


def visible(text: str) -> str:
    return "".join(ch for ch in text if not ch.isspace() and unicodedata.category(ch) != "Cc")


def word_boxes(pdf: bytes, tmp_path) -> list[tuple[str, float, float, float, float]]:
    """(text, x min, y min, x max, y max) in points of every word, as poppler's pdftotext finds them."""
    path = tmp_path / "certificate.pdf"
    path.write_bytes(pdf)
    xhtml = subprocess.run(["pdftotext", "-bbox", str(path), "-"], capture_output=True, text=True, check=True).stdout
    words = ET.fromstring(xhtml).iter("{http://www.w3.org/1999/xhtml}word")
    return [(w.text or "", *(float(w.get(k)) for k in ("xMin", "yMin", "xMax", "yMax"))) for w in words]


def baselines(pdf: bytes) -> list[tuple[float, float]]:
    """(baseline y from the top, font size) of each line of text, top to bottom."""
    page = pypdf.PdfReader(io.BytesIO(pdf)).pages[0]
    height = float(page.mediabox.height)
    found = {}

    def visit(text, cm, tm, font, size):
        if text.strip():
            found[round(height - tm[5], 1)] = size

    page.extract_text(visitor_text=visit)
    return sorted(found.items())


def test_the_fonts_for_every_script_are_installed():
    assert missing_fonts() == [], "bin/setup installs Debian's fonts-noto-core and fonts-noto-cjk"


@pytest.mark.parametrize("script", NAMES)
def test_each_character_has_a_glyph_in_the_font_chosen_for_it(script):
    name = NAMES[script]
    chain = chain_for(name)
    for char in set(name) - {" "}:
        face = face_for(char, chain)
        assert face is not None, f"no font for {char!r}"
        blob = hb.Blob.from_file_path(str(face.regular))
        font = hb.Font(hb.Face(blob, face.index))
        buffer = hb.Buffer()
        buffer.add_str(char)
        buffer.guess_segment_properties()
        hb.shape(font, buffer)
        assert all(info.codepoint != 0 for info in buffer.glyph_infos), f"{char!r} is .notdef in {face.family}"


@pytest.mark.parametrize("script", NAMES)
def test_the_name_prints_whole_and_inside_the_frame(script, tmp_path):
    name = NAMES[script]
    language = LANGUAGES[list(NAMES).index(script) % 3]
    pdf = render(name, language)

    text = pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    assert visible(name) in visible(text)  # a character without a glyph would be missing here

    boxes = word_boxes(pdf, tmp_path)
    assert boxes
    width, height = 297 * MM, 210 * MM
    frame = 11 * MM  # the frame is drawn 10 mm from the edge, 1.2 mm wide
    for word, x_min, y_min, x_max, y_max in boxes:
        assert frame <= x_min and x_max <= width - frame, (word, x_min, x_max)
        assert frame <= y_min and y_max <= height - frame, (word, y_min, y_max)

    lines = baselines(pdf)
    for (upper, _), (lower, size) in itertools.pairwise(lines):
        assert lower - upper >= 0.9 * size, f"a line at {lower} runs into the one at {upper}"


def test_a_long_name_shrinks_then_wraps_but_stays_large_enough_to_read():
    short = baselines(render("Asha Verma"))
    long = baselines(render(NAMES["120 latin characters"]))
    name_size = max(size for _, size in short if size != 30)  # 30 pt is the title
    assert name_size == 32
    long_sizes = [size for _, size in long if 18 <= size < 30]
    assert len(long_sizes) == 2 and long_sizes[0] == long_sizes[1]  # two lines of the same size


@pytest.mark.parametrize(
    ("name", "first_word", "second_word"),
    [("محمد علي", "ح", "ع"), ("דוד כהן", "ד", "כ")],
)
def test_right_to_left_names_read_from_the_right(name, first_word, second_word, tmp_path):
    boxes = word_boxes(render(name), tmp_path)
    first = next(x_min for word, x_min, *_ in boxes if first_word in word)
    second = next(x_min for word, x_min, *_ in boxes if second_word in word)
    assert first > second


def test_arabic_letters_join_across_their_vowel_marks():
    """In مُحَمَّد the first meem starts the word and the second sits inside it: two different glyphs.
    Letters cut apart by their marks would both print as the one isolated meem."""
    reader = pypdf.PdfReader(io.BytesIO(render("مُحَمَّد")))
    fonts = reader.pages[0]["/Resources"]["/Font"].values()
    arabic = next(f.get_object() for f in fonts if "Arabic" in str(f.get_object()["/BaseFont"]))
    cmap = arabic["/ToUnicode"].get_object().get_data().decode()
    assert cmap.count("> <0645>") == 2


def test_a_character_no_installed_font_draws_is_reported_and_the_rest_prints(caplog):
    with caplog.at_level("WARNING", logger="certificates.pdf"):
        pdf = render("Asha Verma \U0001f642")
    assert "'🙂'" in caplog.text and "run bin/setup" in caplog.text
    assert "Asha Verma" in pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
