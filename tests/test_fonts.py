"""The site's type: which font files a page can ask for. Each weight of a face is one more file, and
on a phone's slow network every file asked for before the first paint delays the page (Lighthouse's
largest contentful paint). The site has two weights, 400 and 700, in both faces: a rule or a drawing
asking for another weight would either fetch a third file, if one were declared, or be drawn by the
browser from the nearest one without anyone having chosen it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE_STYLESHEETS = ["static/css/site.css", "static/css/labs.css", "static/css/quizzes.css"]
# Where markup is written: templates, and the Python that draws SVG on the server.
MARKUP = ["templates", "accounts", "certificates", "config", "course", "labs", "quizzes"]
WEIGHT = re.compile(r"font-weight\s*[:=]\s*\"?(\w+)")
FACE = re.compile(r"@font-face\s*{[^}]*}")


def declared_faces() -> dict[str, set[str]]:
    faces: dict[str, set[str]] = {}
    for face in FACE.findall((ROOT / "static/css/site.css").read_text("utf-8")):
        family = re.search(r'font-family:\s*"([^"]+)"', face).group(1)
        faces.setdefault(family, set()).update(WEIGHT.findall(face))
    return faces


def weights_asked_for() -> dict[str, set[str]]:
    """Every weight a rule or an element asks for, with where (bold and normal are 700 and 400)."""
    named = {"bold": "700", "normal": "400"}
    found: dict[str, set[str]] = {}
    sources = [ROOT / path for path in SITE_STYLESHEETS]
    for folder in MARKUP:
        sources += [p for p in (ROOT / folder).rglob("*") if p.suffix in {".html", ".py", ".svg"}]
    for source in sources:
        text = FACE.sub("", source.read_text("utf-8"))
        for weight in WEIGHT.findall(text):
            found.setdefault(named.get(weight, weight), set()).add(str(source.relative_to(ROOT)))
    return found


def test_both_faces_have_the_same_two_weights():
    faces = declared_faces()
    assert faces.pop("DejaVu Math TeX Gyre") == set()  # the formulas' face: one file, MathML sets no weight
    assert faces == {"Noto Sans": {"400", "700"}, "Noto Sans Devanagari": {"400", "700"}}


def test_every_weight_asked_for_is_a_declared_one():
    asked = weights_asked_for()
    assert "700" in asked  # the scan finds the rules it checks
    others = {weight: sorted(where) for weight, where in asked.items() if weight not in {"400", "700"}}
    assert others == {}, f"weights with no font file of their own: {others}"


def test_every_declared_font_file_is_vendored_and_no_other():
    css = (ROOT / "static/css/site.css").read_text("utf-8")
    named = {Path(url).name for url in re.findall(r'url\("\.\./vendor/fonts/([^"]+)"\)', css)}
    vendored = {p.name for p in (ROOT / "static/vendor/fonts").glob("*.woff2")}
    assert named == vendored, f"declared but missing: {named - vendored}; vendored, never used: {vendored - named}"
