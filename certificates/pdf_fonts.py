"""Which font draws which character of a certificate.

The bundled Noto Sans (Latin with diacritics, Greek, Cyrillic) and Noto Sans Devanagari always ship
with the site. Every other script comes from Debian's Noto packages, which bin/setup installs:
fonts-noto-core (Arabic, Hebrew, and a Noto Sans font for nearly every other script) and
fonts-noto-cjk (Chinese, Japanese, Korean). A character takes the first face of the chain that
has it; Han characters take the Japanese or Korean face when the text shows kana or Hangul.
"""

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import uharfbuzz as hb

FONT_DIR = Path(__file__).resolve().parent / "fonts"
NOTO_DIR = Path("/usr/share/fonts/truetype/noto")  # fonts-noto-core
NOTO_CJK_DIR = Path("/usr/share/fonts/opentype/noto")  # fonts-noto-cjk
KANA = re.compile("[\u3040-\u30ff\u31f0-\u31ff\uff65-\uff9f]")
HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff]")
# Characters no face needs to draw: spaces take the width of the run they sit in, and the joiners
# only steer the shaping of their neighbours.
INVISIBLE = {"\u200c", "\u200d"}


@dataclass(frozen=True)
class Face:
    family: str  # the name fpdf2 knows it by
    regular: Path
    bold: Path
    index: int = 0  # the face inside a .ttc collection

    @property
    def available(self) -> bool:
        return self.regular.is_file()

    def has(self, char: str) -> bool:
        return self.available and ord(char) in _cmap(self.regular, self.index)


def _cjk(family: str, index: int) -> Face:
    return Face(family, NOTO_CJK_DIR / "NotoSansCJK-Regular.ttc", NOTO_CJK_DIR / "NotoSansCJK-Bold.ttc", index)


def _noto(name: str) -> Face:
    return Face(name.lower(), NOTO_DIR / f"{name}-Regular.ttf", NOTO_DIR / f"{name}-Bold.ttf")


CORE = (
    Face("latin", FONT_DIR / "NotoSans-Regular.ttf", FONT_DIR / "NotoSans-Bold.ttf"),
    Face("deva", FONT_DIR / "NotoSansDevanagari-Regular.ttf", FONT_DIR / "NotoSansDevanagari-Bold.ttf"),
    _noto("NotoSansArabic"),
    _noto("NotoSansHebrew"),
)
# Faces 0-2 of Noto Sans CJK are its Japanese, Korean and Simplified Chinese designs.
CJK_JAPANESE, CJK_KOREAN, CJK_CHINESE = _cjk("cjk-jp", 0), _cjk("cjk-kr", 1), _cjk("cjk-sc", 2)


@cache
def _cmap(path: Path, index: int) -> frozenset[int]:
    return frozenset(hb.Face(hb.Blob.from_file_path(str(path)), index).unicodes)


@cache
def _other_noto_faces() -> tuple[Face, ...]:
    """Debian's Noto Sans for the remaining scripts (Bengali, Tamil, Thai, Georgian, Ethiopic...)."""
    core = {face.regular.name for face in CORE}
    names = sorted(path.name.removesuffix("-Regular.ttf") for path in NOTO_DIR.glob("NotoSans*-Regular.ttf"))
    return tuple(
        _noto(name)
        for name in names
        if f"{name}-Regular.ttf" not in core and not name.startswith(("NotoSansDisplay", "NotoSansMono"))
    )


def chain_for(text: str) -> tuple[Face, ...]:
    """The faces in the order they are tried, with the CJK design that suits the text."""
    cjk = CJK_JAPANESE if KANA.search(text) else CJK_KOREAN if HANGUL.search(text) else CJK_CHINESE
    return (*CORE, cjk)


def face_for(char: str, chain: tuple[Face, ...]) -> Face | None:
    face = next((face for face in chain if face.has(char)), None)
    return face or next((face for face in _other_noto_faces() if face.has(char)), None)


def faces_for(text: str) -> list[Face]:
    """Every face that draws some character of text, the first one first."""
    chain, faces = chain_for(text), []
    for char in dict.fromkeys(text):
        face = None if char.isspace() or char in INVISIBLE else face_for(char, chain)
        if face and face not in faces:
            faces.append(face)
    return faces


def unprintable(text: str) -> str:
    """The characters of text that no installed font can draw."""
    chain = chain_for(text)
    return "".join(
        char for char in dict.fromkeys(text) if not (char.isspace() or char in INVISIBLE or face_for(char, chain))
    )


def missing_fonts() -> list[Path]:
    """Font files of the chain that are not installed (bin/setup installs them)."""
    return [face.regular for face in (*CORE, CJK_CHINESE) if not face.available]
