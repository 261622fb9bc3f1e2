"""The printable certificate: A4 landscape, in the certificate's language with English beneath.

Devanagari needs text shaping (conjuncts such as क्ष, the i-matra drawn before its consonant), so
fpdf2 shapes every line with HarfBuzz. The fonts ship in quizzes/fonts (OFL) so the PDF never
depends on what the server has installed. Each line is split into runs of Devanagari and other
text, each drawn with its own font: fpdf2's automatic font fallback loses the font of the next line.
"""

import logging
import re
from pathlib import Path

import segno
from django.utils import formats, translation
from django.utils.translation import gettext as _
from fpdf import FPDF

from .models import Certificate

FONT_DIR = Path(__file__).resolve().parent / "fonts"
FONTS = {
    ("latin", ""): "NotoSans-Regular.ttf",
    ("latin", "B"): "NotoSans-Bold.ttf",
    ("deva", ""): "NotoSansDevanagari-Regular.ttf",
    ("deva", "B"): "NotoSansDevanagari-Bold.ttf",
}
# Devanagari, Vedic extensions, Devanagari Extended, and the joiners that shape conjuncts.
DEVANAGARI = "\u0900-\u097f\u1cd0-\u1cff\ua8e0-\ua8ff\u200c\u200d"
DEVANAGARI_RE = re.compile(f"([{DEVANAGARI}]+(?:[\\s.,:;-]+[{DEVANAGARI}]+)*)")
logging.getLogger("fontTools").setLevel(logging.WARNING)  # it logs every subsetting step at INFO
INK = (27, 35, 48)
ACCENT = (31, 78, 140)
MUTED = (85, 96, 112)


def _runs(text: str) -> list[tuple[str, str]]:
    """(font family, text) pieces: Devanagari runs (with the spaces between words) and the rest."""
    return [("deva" if i % 2 else "latin", part) for i, part in enumerate(DEVANAGARI_RE.split(text)) if part]


def _draw(
    pdf: FPDF, text: str, x: float | None, y: float, size: float, style: str = "", color=INK, link: str = ""
) -> None:
    """One line of mixed-script text starting at x, or centred on the page when x is None."""
    runs = _runs(text)
    widths = []
    for family, part in runs:
        pdf.set_font(family, style, size)
        widths.append(pdf.get_string_width(part))
    pdf.set_text_color(*color)
    x = (pdf.w - sum(widths)) / 2 if x is None else x
    for (family, part), width in zip(runs, widths, strict=True):
        pdf.set_font(family, style, size)
        pdf.set_xy(x, y)
        pdf.cell(width, size * 0.5, part, link=link)
        x += width


def _line(pdf: FPDF, text: str, y: float, size: float, style: str = "", color=INK) -> None:
    _draw(pdf, text, None, y, size, style, color)


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
        return {
            "title": _("Certificate of completion"),
            "certifies": _("This certifies that"),
            "passed": _("passed the final exam of the Gradient Accumulation Course"),
            "details": _("Score band %(band)s · issued %(date)s")
            % {"band": certificate.score_band, "date": formats.date_format(certificate.issued_at, "DATE_FORMAT")},
            "verify": _("Verify this certificate:"),
        }


def certificate_pdf(certificate: Certificate, verify_url: str) -> bytes:
    pdf = FPDF(orientation="L", unit="mm", format="A4")
    pdf.set_title(f"Certificate {certificate.display_id}")
    pdf.set_author(certificate.name)
    pdf.set_auto_page_break(False)
    for (family, style), filename in FONTS.items():
        pdf.add_font(family, style, str(FONT_DIR / filename))
    pdf.set_text_shaping(True)
    pdf.add_page()
    pdf.set_draw_color(*ACCENT)
    pdf.set_line_width(1.2)
    pdf.rect(10, 10, pdf.w - 20, pdf.h - 20)

    own = _texts(certificate, certificate.language)
    english = _texts(certificate, "en")
    # The English line beneath each line, unless it would repeat it (English, or not translated yet).
    second = {key: text if text != own[key] else "" for key, text in english.items()}
    _line(pdf, "Gradient Accumulation Course", 24, 12, color=MUTED)
    _line(pdf, own["title"], 40, 30, "B", ACCENT)
    y = 56
    if second["title"]:
        _line(pdf, second["title"], y, 14, color=MUTED)
        y += 10
    _line(pdf, own["certifies"] + (f" / {second['certifies']}" if second["certifies"] else ""), y + 6, 13, color=MUTED)
    _line(pdf, certificate.name, y + 20, 32, "B")
    _line(pdf, own["passed"], y + 40, 15)
    if second["passed"]:
        _line(pdf, second["passed"], y + 49, 12, color=MUTED)
    _line(pdf, own["details"], y + 62, 13)
    if second["details"]:
        _line(pdf, second["details"], y + 70, 11, color=MUTED)

    qr_size = 34
    qr_x, qr_y = pdf.w - 20 - qr_size, pdf.h - 20 - qr_size
    _qr(pdf, verify_url, qr_x, qr_y, qr_size)
    verify = own["verify"] + (f" / {second['verify']}" if second["verify"] else "")
    _draw(pdf, verify, 20, qr_y + 8, 10, color=MUTED)
    _draw(pdf, certificate.display_id, 20, qr_y + 16, 12, "B", link=verify_url)
    _draw(pdf, verify_url, 20, qr_y + 24, 8, color=ACCENT, link=verify_url)
    return bytes(pdf.output())
