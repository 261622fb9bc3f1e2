"""The picture a link to a certificate page shows when shared (Open Graph's og:image): a PNG drawn with
Pillow in the fonts of the printed certificate (certificates.pdf_fonts), in the page's language.

Pillow shapes each run of text with HarfBuzz (Raqm layout), so Devanagari conjuncts and Arabic joining
come out right, but it has no font fallback: the text is cut into runs that one face draws, and each
run is drawn in its face. Runs are laid out left to right, so a name that mixes a right-to-left script
with another script's letters (not its digits or punctuation) keeps its runs in typing order.

A picture is drawn once per certificate, status and language and kept in the cache: a revoked
certificate's picture says so, and a corrected name is a new certificate.
"""

import io
import logging
import unicodedata

from django.core.cache import cache
from django.utils import formats, translation
from django.utils.translation import gettext as _
from PIL import Image, ImageDraw, ImageFont
from redis import RedisError

from course.typography import french_text

from .models import Certificate
from .pdf import ACCENT, INK, MUTED
from .pdf_fonts import CORE, INVISIBLE, Face, chain_for, face_for

logger = logging.getLogger(__name__)

WIDTH, HEIGHT = 1200, 630  # the 1.91:1 size Facebook, LinkedIn and X show as a large card
PADDING = 80
SMALLEST_SIZE = 14  # px: below this, a name too long for its lines takes more lines instead
WARNING = (168, 29, 29)
CACHE_KEY = "certificates:og-image:v1:{id}:{status}:{language}"
CACHE_SECONDS = 30 * 24 * 3600  # drawn again at most monthly; a status change gets a new key at once


def _face_of(char: str, chain: tuple[Face, ...]) -> Face | None:
    """The face a character needs, or None for one that goes with its neighbours' face (spaces,
    joiners, combining marks)."""
    if char.isspace() or char in INVISIBLE or unicodedata.category(char).startswith("M"):
        return None
    return face_for(char, chain)


def text_runs(text: str) -> list[tuple[str, Face]]:
    """The text cut into runs that one face draws each."""
    chain = chain_for(text)
    runs: list[list] = []
    for char in text:
        face = _face_of(char, chain)
        if runs and (face is None or face == runs[-1][1]):
            runs[-1][0] += char
        else:
            runs.append([char, face or CORE[0]])
    return [(run, face) for run, face in runs]


class Fonts(dict):
    """The fonts one drawing uses, each opened once (opening the CJK collection takes tens of ms)."""

    def get_font(self, face: Face, size: int, bold: bool) -> ImageFont.FreeTypeFont:
        key = (face, size, bold)
        if key not in self:
            path = face.bold if bold and face.bold.is_file() else face.regular
            self[key] = ImageFont.truetype(str(path), size, index=face.index, layout_engine=ImageFont.Layout.RAQM)
        return self[key]


def line_width(fonts: Fonts, runs: list[tuple[str, Face]], size: int, bold: bool) -> float:
    return sum(fonts.get_font(face, size, bold).getlength(run) for run, face in runs)


def _wrapped(fonts: Fonts, text: str, size: int, bold: bool, width: int) -> list[str]:
    """Lines of at most `width` pixels, broken at spaces, or between the letters of a word longer than
    a line (Chinese and Japanese names have no spaces)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        trial = f"{line} {word}" if line else word
        if line_width(fonts, text_runs(trial), size, bold) <= width:
            line = trial
            continue
        if line:
            lines.append(line)
        line, used = "", 0.0
        for char in word:  # letter by letter, adding up widths: a long word is rare, and seldom kerned
            advance = line_width(fonts, text_runs(char), size, bold)
            if line and used + advance > width:
                lines.append(line)
                line, used = "", 0.0
            line, used = line + char, used + advance
    return [*lines, line] if line else lines


def fitted_lines(
    fonts: Fonts, text: str, size: int, min_size: int, bold: bool, max_lines: int
) -> tuple[int, list[str]]:
    """(size, lines): the fewest lines in which text stays at `min_size` or larger, within them the
    largest size up to `size`; text too long for that goes below `min_size` in `max_lines` lines.
    Nothing is cut off: a name is shown whole or not at all."""
    width = WIDTH - 2 * PADDING
    sizes = [size]
    while int(sizes[-1] * 0.9) >= min_size:
        sizes.append(int(sizes[-1] * 0.9))
    wrapped = {trial: _wrapped(fonts, text, trial, bold, width) for trial in sizes}
    for lines_allowed in range(1, max_lines + 1):
        for trial in sizes:
            if len(wrapped[trial]) <= lines_allowed:
                return trial, wrapped[trial]
    trial, lines = sizes[-1], wrapped[sizes[-1]]
    while trial > SMALLEST_SIZE and len(lines) > max_lines:
        trial -= 2
        lines = _wrapped(fonts, text, trial, bold, width)
    return trial, lines


def _draw_lines(draw: ImageDraw.ImageDraw, fonts: Fonts, text: str, top: int, size: int, **style) -> int:
    """Draws text centred, shrunk and wrapped to fit; returns the y below it."""
    bold, color = style.get("bold", False), style.get("color", INK)
    size, lines = fitted_lines(fonts, text, size, style.get("min_size", size), bold, style.get("max_lines", 1))
    line_height = int(size * 1.4)
    for number, line in enumerate(lines):
        runs = text_runs(line)
        x = (WIDTH - line_width(fonts, runs, size, bold)) / 2
        baseline = top + number * line_height + size
        for run, face in runs:
            font = fonts.get_font(face, size, bold)
            draw.text((x, baseline), run, font=font, fill=color, anchor="ls")
            x += font.getlength(run)
    return top + len(lines) * line_height


def card_texts(certificate: Certificate) -> dict[str, str]:
    issued = formats.date_format(certificate.issued_at, "DATE_FORMAT")
    texts = {
        "course": _("Gradient Accumulation Course"),
        "title": _("Certificate of completion"),
        "passed": _("passed the final exam of the Gradient Accumulation Course"),
        "details": _("Score band %(band)s · issued %(date)s") % {"band": certificate.score_band, "date": issued},
        "id": _("Certificate ID %(id)s") % {"id": certificate.display_id},
        "status": {
            Certificate.Status.REVOKED: _("This certificate was revoked."),
            Certificate.Status.SUPERSEDED: _("This certificate was replaced by a newer one."),
        }.get(certificate.status, ""),
    }
    if translation.get_language() == "fr":  # the score band ("90–100%") is not in the translations
        texts = {key: french_text(text) for key, text in texts.items()}
    return texts


def draw_og_image(certificate: Certificate) -> bytes:
    """The PNG, in the active language."""
    texts = card_texts(certificate)
    image = Image.new("RGB", (WIDTH, HEIGHT), "white")
    draw, fonts = ImageDraw.Draw(image), Fonts()
    draw.rectangle((20, 20, WIDTH - 21, HEIGHT - 21), outline=ACCENT, width=6)
    _draw_lines(draw, fonts, texts["course"], 60, 30, color=MUTED)
    y = _draw_lines(draw, fonts, texts["title"], 120, 52, bold=True, color=ACCENT, min_size=36)
    # The name: up to 120 characters, at 72 px when it fits, else smaller (30 px or more) on two lines.
    y = _draw_lines(draw, fonts, certificate.name, y + 30, 72, bold=True, min_size=30, max_lines=2)
    y = _draw_lines(draw, fonts, texts["passed"], y + 20, 32, min_size=24, max_lines=2)
    y = _draw_lines(draw, fonts, texts["details"], y + 6, 30, color=MUTED)
    if texts["status"]:
        y = _draw_lines(draw, fonts, texts["status"], y + 10, 34, bold=True, color=WARNING)
    _draw_lines(draw, fonts, texts["id"], max(y + 4, HEIGHT - 90), 24, color=MUTED)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def og_image(certificate: Certificate) -> bytes:
    """The picture from the cache, drawn and kept there when missing (or drawn alone when the cache
    cannot be reached)."""
    key = CACHE_KEY.format(id=certificate.id, status=certificate.status, language=translation.get_language())
    try:
        cached = cache.get(key)
    except RedisError as exc:
        logger.warning("the certificate picture cache could not be read: %s", exc)
        return draw_og_image(certificate)
    if cached is not None:
        return cached
    body = draw_og_image(certificate)
    try:
        cache.set(key, body, CACHE_SECONDS)
    except RedisError as exc:
        logger.warning("a certificate picture could not be cached: %s", exc)
    return body
