"""The printable certificate: A4 landscape, in the certificate's language with English beneath.

Every line is shaped with HarfBuzz (Devanagari conjuncts, joined Arabic) and laid out by fpdf2's
bidirectional algorithm, so right-to-left names read right to left. Each line is set in the font of
its first letter and falls back through the fonts of certificates.pdf_fonts for the other characters.
A line too wide for the page shrinks, then wraps, so a name of any length stays inside the frame.
"""

import logging
import unicodedata
from functools import cache

import fpdf.fpdf
import segno
from django.utils import formats, translation
from django.utils.translation import gettext as _
from fpdf import FPDF
from fpdf.unicode_script import UnicodeScript, get_unicode_script

from course.typography import french_text

from .models import Certificate
from .pdf_fonts import CORE, Face, faces_for, unprintable

logging.getLogger("fontTools").setLevel(logging.WARNING)  # it logs every subsetting step at INFO
logger = logging.getLogger(__name__)
INK = (27, 35, 48)
ACCENT = (31, 78, 140)
MUTED = (85, 96, 112)
MARGIN = 20  # mm from the page edge to the text: 10 mm inside the frame
PT = 25.4 / 72  # one point in mm
MIN_TRIAL_SIZE = 6  # pt: below this, shrinking stops and the text wraps


@cache
def _script_keeping_marks(char: str) -> UnicodeScript:
    """fpdf2 starts a new shaping run at every combining mark (script "Inherited"), which leaves
    Arabic letters with vowel marks unjoined. A mark belongs to its letter's run (UAX #24)."""
    script = get_unicode_script(char)
    return UnicodeScript.COMMON if script == UnicodeScript.INHERITED else script


fpdf.fpdf.get_unicode_script = _script_keeping_marks


def _register(pdf: FPDF, face: Face) -> None:
    if face.family in pdf.fonts:
        return
    bold = face.bold if face.bold.is_file() else face.regular  # a few scripts have no bold design
    pdf.add_font(face.family, "", str(face.regular), collection_font_number=face.index)
    pdf.add_font(face.family, "B", str(bold), collection_font_number=face.index)


def _set_font(pdf: FPDF, text: str, style: str, size: float) -> None:
    """The font of the text's first letter, falling back to the others the text needs."""
    faces = faces_for(text) or [CORE[0]]
    for face in faces:
        _register(pdf, face)
    letter = next((ch for ch in text if unicodedata.category(ch).startswith("L")), "")
    main = next((face for face in faces if face.has(letter)), faces[0])
    pdf.set_font(main.family, style, size)
    pdf.set_fallback_fonts([face.family for face in faces if face is not main])


def _line_count(pdf: FPDF, text: str, width: float) -> int:
    return len(pdf.multi_cell(width, text=text, dry_run=True, output="LINES", padding=0))


def _size_for_lines(pdf: FPDF, text: str, style: str, size: float, natural: float, width: float, lines: int):
    """The largest size up to `size` at which text fits in `lines` lines of `width`, or 0."""
    trial = min(size, size * lines * width / natural)
    while trial >= MIN_TRIAL_SIZE:
        _set_font(pdf, text, style, trial)
        if pdf.get_string_width(text) <= width if lines == 1 else _line_count(pdf, text, width) <= lines:
            return trial
        trial *= 0.95
    return 0


def _fitting_size(pdf: FPDF, text: str, style: str, size: float, min_size: float, width: float, max_lines: int):
    """(size, lines): the fewest lines in which text stays at `min_size` or larger; within them the
    largest size up to `size`. Text too long for that goes below `min_size` in `max_lines` lines."""
    _set_font(pdf, text, style, size)
    natural = pdf.get_string_width(text)
    if natural <= width:
        return size, 1
    for lines in range(1, max_lines + 1):
        fitting = _size_for_lines(pdf, text, style, size, natural, width, lines)
        if fitting >= min_size:
            return fitting, lines
    if fitting:  # not even `max_lines` lines at `min_size`: smaller still rather than more lines
        return fitting, max_lines
    _set_font(pdf, text, style, MIN_TRIAL_SIZE)
    return MIN_TRIAL_SIZE, _line_count(pdf, text, width)


def _text(
    pdf: FPDF,
    text: str,
    y: float,
    size: float,
    style: str = "",
    color=INK,
    *,
    x: float = MARGIN,
    width: float | None = None,
    align: str = "C",
    min_size: float | None = None,
    max_lines: int = 2,
    link: str = "",
) -> float:
    """Draws text in the box from x (centred on the page by default), shrunk and wrapped to fit it;
    returns the y below it."""
    width = pdf.w - 2 * MARGIN if width is None else width
    size, lines = _fitting_size(pdf, text, style, size, min_size or size * 0.6, width, max_lines)
    line_height = size * PT * 1.35
    pdf.set_text_color(*color)
    pdf.set_xy(x, y)
    if lines == 1:
        pdf.cell(width, line_height, text, align=align, link=link)
    else:
        pdf.multi_cell(width, line_height, text, align=align, link=link or None, padding=0)
    return y + lines * line_height


def _qr(pdf: FPDF, url: str, x: float, y: float, size: float) -> None:
    """The QR code drawn as vector squares (one rectangle per run of dark modules)."""
    code = segno.make(url, error="m", micro=False)
    rows = [list(row) for row in code.matrix]
    module = size / len(rows)
    pdf.set_fill_color(*INK)
    for r, row in enumerate(rows):
        c = 0
        while c < len(row):
            if not row[c]:
                c += 1
                continue
            start = c
            while c < len(row) and row[c]:
                c += 1
            pdf.rect(x + start * module, y + r * module, (c - start) * module, module, style="F")
    pdf.link(x, y, size, size, url)


def _texts(certificate: Certificate, language: str) -> dict[str, str]:
    with translation.override(language):
        texts = {
            "title": _("Certificate of completion"),
            "certifies": _("This certifies that"),
            "passed": _("passed the final exam of the Gradient Accumulation Course"),
            "details": _("Score band %(band)s · issued %(date)s")
            % {"band": certificate.score_band, "date": formats.date_format(certificate.issued_at, "DATE_FORMAT")},
            "verify": _("Verify this certificate:"),
        }
    if language == "fr":  # the translations are set already; the score band ("90–100%") is not
        texts = {key: french_text(text) for key, text in texts.items()}
    return texts


def certificate_pdf(certificate: Certificate, verify_url: str) -> bytes:
    pdf = FPDF(orientation="L", unit="mm", format="A4")
    pdf.set_title(f"Certificate {certificate.display_id}")
    pdf.set_author(certificate.name)
    pdf.set_auto_page_break(False)
    pdf.set_text_shaping(True)
    pdf.c_margin = 0
    pdf.add_page()
    pdf.set_draw_color(*ACCENT)
    pdf.set_line_width(1.2)
    pdf.rect(10, 10, pdf.w - 20, pdf.h - 20)

    if missing := unprintable(certificate.name):
        logger.warning("No installed font draws %r in certificate %s: run bin/setup", missing, certificate.pk)
    own = _texts(certificate, certificate.language)
    english = _texts(certificate, "en")
    # The English line beneath each line, unless it would repeat it (English, or not translated yet).
    second = {key: text if text != own[key] else "" for key, text in english.items()}
    _text(pdf, "Gradient Accumulation Course", 22, 12, color=MUTED)
    y = _text(pdf, own["title"], 40, 30, "B", ACCENT, max_lines=1)
    if second["title"]:
        y = _text(pdf, second["title"], y, 14, color=MUTED)
    certifies = own["certifies"] + (f" / {second['certifies']}" if second["certifies"] else "")
    y = _text(pdf, certifies, y + 8, 13, color=MUTED)
    # The name: up to 120 characters, at 32 pt when it fits, else smaller (18 pt or more) on up to three
    # lines; 120 wide CJK characters take three lines at about 17 pt.
    y = _text(pdf, certificate.name, y + 6, 32, "B", min_size=18, max_lines=3)
    y = _text(pdf, own["passed"], y + 8, 15)
    if second["passed"]:
        y = _text(pdf, second["passed"], y, 12, color=MUTED)
    y = _text(pdf, own["details"], y + 6, 13)
    if second["details"]:
        _text(pdf, second["details"], y, 11, color=MUTED)

    qr_size = 34
    qr_x, qr_y = pdf.w - MARGIN - qr_size, pdf.h - MARGIN - qr_size
    _qr(pdf, verify_url, qr_x, qr_y, qr_size)
    verify = own["verify"] + (f" / {second['verify']}" if second["verify"] else "")
    left = {"x": MARGIN, "width": qr_x - 5 - MARGIN, "align": "L", "max_lines": 1}
    _text(pdf, verify, qr_y + 6, 10, color=MUTED, **left)
    _text(pdf, certificate.display_id, qr_y + 14, 12, "B", link=verify_url, **left)
    _text(pdf, verify_url, qr_y + 22, 8, color=ACCENT, link=verify_url, **left)
    if certificate.credential:  # attached uncompressed, so /certificates/verify/ finds it in the bytes
        pdf.embed_file(
            bytes=certificate.credential.encode(),
            basename="open-badge-credential.jwt",
            mime_type="application/vc+jwt",
            desc="Open Badges 3.0 credential (VC-JWT)",
        )
    return bytes(pdf.output())
