"""The course as one EPUB 3 book per language (`manage.py build_book`).

A book holds the seven guides in order (their text, MathML formulas, code, and the figures drawn
from the reference runs as SVG), a table of contents down to each guide's sections, the exercises'
solutions gathered at the end, and the site's own fonts (Noto Sans, its Devanagari cut, and the
formulas' DejaVu Math), so Hindi shapes right in any reader. The container is written with the
standard library (OCF: an uncompressed `mimetype` first, then the package); EPUBCheck checks it
(tests/course/test_book.py).

The guides' stored HTML is HTML5; the book's XHTML is made from it by a small writer on Python's
HTML parser (`XHTMLWriter`): void elements closed, text and attributes escaped for XML, SVG's
case-sensitive names restored, MathML and SVG in their namespaces, the site's interactive parts
(disclosures, framework tabs, a figure's picker form) laid out flat for reading, and links to the
site made absolute. Each book's file name carries a hash of what it is made of, so the command
skips a book that is current and a changed guide or figure makes a new one.
"""

import hashlib
import html
import re
import uuid
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

from django.conf import settings
from django.contrib.staticfiles import finders
from django.utils import translation
from django.utils.translation import gettext as _

from .figures import figures_state, fill_static_figures
from .models import GuidePage

BOOK_FORMAT = "1"  # bump when the book's making changes: every book is made again
BOOKS_FOLDER = "books"  # under MEDIA_ROOT, served at MEDIA_URL + "books/"
FONTS = (
    "noto-sans-latin-400-normal.woff2",
    "noto-sans-latin-700-normal.woff2",
    "noto-sans-devanagari-devanagari-400-normal.woff2",
    "noto-sans-devanagari-devanagari-700-normal.woff2",
    "dejavu-math-tex-gyre.woff2",
)
XHTML_NS = "http://www.w3.org/1999/xhtml"
SVG_NS = "http://www.w3.org/2000/svg"
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
# HTML's parser lowers every name; SVG's are case-sensitive in XML.
SVG_NAMES = {
    name.lower(): name
    for name in (
        "viewBox", "preserveAspectRatio", "textLength", "lengthAdjust", "gradientUnits", "gradientTransform",
        "patternUnits", "clipPath", "clipPathUnits", "linearGradient", "radialGradient", "markerWidth",
        "markerHeight", "refX", "refY", "foreignObject", "textPath", "startOffset", "markerUnits",
    )
}  # fmt: skip
# What reading needs none of: a figure's picker (a form), a tab's radio buttons.
DROPPED = {"form", "input", "script", "style", "button", "select", "option", "noscript"}
SITE_GUIDE_LINK = re.compile(r"^/(?P<language>[a-z]{2})/guides/(?P<slug>[a-z0-9-]+)/(?P<fragment>#[^\s]*)?$")


def chapter_name(order: int) -> str:
    return f"guide-{order:02d}.xhtml"


@dataclass
class Solution:
    anchor: str
    exercise: str  # the exercise's heading
    body: str  # XHTML


@dataclass
class Chapter:
    page: GuidePage
    name: str
    body: str  # XHTML of the guide's article
    solutions: list[Solution] = field(default_factory=list)

    @property
    def properties(self) -> list[str]:
        return [name for name, tag in (("mathml", "<math"), ("svg", "<svg")) if tag in self.body]


class XHTMLWriter(HTMLParser):
    """One guide's HTML (figures drawn in) as well-formed XHTML for the book (see the module's
    docstring). Top-level disclosures after the exercises heading are the solutions: they are
    taken out, each replaced with a link to its place at the end of the book."""

    def __init__(self, slug: str, links: dict[str, str], solutions_file: str) -> None:
        super().__init__(convert_charrefs=True)
        self.slug, self.links, self.solutions_file = slug, links, solutions_file
        self.out: list[str] = []
        self.stack: list[str] = []  # open elements, as written (or "" for a dropped one)
        self.dropping = 0  # depth inside a dropped element
        self.in_exercises = False
        self.exercise = ""  # the current exercise's heading text
        self.heading: list[str] | None = None
        self.solution: Solution | None = None
        self.solution_depth = 0
        self._solution_parts: list[str] = []
        self.solutions: list[Solution] = []
        self.tab_labels: list[str] = []
        self.tab_label_depth: int | None = None
        self.tab_index = 0

    # -- output

    def _emit(self, text: str) -> None:
        if self.heading is not None:
            self.heading.append(text)
        (self._solution_parts if self.solution else self.out).append(text)

    def _attributes(self, tag: str, attrs: list[tuple[str, str | None]], in_svg: bool) -> str:
        written = []
        for name, value in attrs:
            value = "" if value is None else value
            if in_svg:
                name = SVG_NAMES.get(name, name)
            if name in ("tabindex", "data-tabs", "checked", "name") or name.startswith("on"):
                continue
            if tag == "a" and name == "href":
                value = self._link(value)
            written.append(f' {name}="{html.escape(value, quote=True)}"')
        if tag == "svg" and "xmlns" not in dict(attrs):
            written.insert(0, f' xmlns="{SVG_NS}"')
        if tag == "math" and "xmlns" not in dict(attrs):
            written.insert(0, f' xmlns="{MATHML_NS}"')
        return "".join(written)

    def _link(self, href: str) -> str:
        match = SITE_GUIDE_LINK.match(href)
        if match and match["slug"] in self.links:
            return self.links[match["slug"]] + (match["fragment"] or "")
        if href.startswith("/"):
            return settings.SITE_URL.rstrip("/") + href
        return href

    def _in(self, name: str) -> bool:
        return name in self.stack

    # -- parser events

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closed=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], closed: bool) -> None:
        classes = (dict(attrs).get("class") or "").split()
        # A solution's "Solution" line: its place at the end of the book is headed by its exercise.
        solution_summary = self.solution is not None and tag == "summary" and len(self.stack) == self.solution_depth
        if self.dropping or tag in DROPPED or "tabbed-labels" in classes or solution_summary:
            if not (closed or tag in VOID):
                self.dropping += 1
                self.stack.append("")
                if "tabbed-labels" in classes:
                    self.tab_label_depth, self.tab_labels, self.tab_index = len(self.stack), [], 0
            return
        in_svg = self._in("svg") or tag == "svg"
        name = SVG_NAMES.get(tag, tag) if in_svg else tag
        depth = len([item for item in self.stack if item])
        if tag == "h2":
            self.in_exercises = dict(attrs).get("id") == "exercises"
        if tag == "details" and depth == 0 and self.in_exercises:  # a solution: to the end of the book
            number = len(self.solutions) + 1
            self.solution = Solution(anchor=f"solution-{self.slug}-{number}", exercise=self.exercise, body="")
            self._solution_parts = []
            self.solution_depth = len(self.stack) + 1
            self.out.append(
                f'<p class="book-solution-link"><a href="{self.solutions_file}#{self.solution.anchor}" '
                f'id="exercise-{self.slug}-{number}">{html.escape(_("Solution"))} →</a></p>'
            )
            self.stack.append("details")
            return
        if tag == "details":  # laid open: readers show disclosures unevenly
            name, attrs = "div", [("class", "book-details")]
        elif tag == "summary":
            name, attrs = "p", [("class", "book-summary")]
        elif "tabbed-block" in classes and self.tab_labels:
            label = self.tab_labels[self.tab_index] if self.tab_index < len(self.tab_labels) else ""
            self.tab_index += 1
            self._emit(f'<p class="book-tab-label">{html.escape(label)}</p>')
        if tag == "h3" and self.in_exercises:
            self.heading = []
        self._emit(f"<{name}{self._attributes(tag, attrs, in_svg)}{'/' if closed or tag in VOID else ''}>")
        if not (closed or tag in VOID):
            self.stack.append(name)

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID or not self.stack:
            return
        name = self.stack.pop()
        if name == "":
            self.dropping -= 1
            if self.tab_label_depth is not None and len(self.stack) + 1 == self.tab_label_depth:
                self.tab_label_depth = None
            return
        if self.solution and name == "details" and len(self.stack) + 1 == self.solution_depth:
            self.solution.body = "".join(self._solution_parts)
            self.solutions.append(self.solution)
            self.solution = None
            return
        self._emit(f"</{name}>")
        if name == "h3" and self.heading is not None:
            self.exercise = re.sub(r"<[^>]+>", "", "".join(self.heading[:-1])).strip()
            self.heading = None

    def handle_data(self, data: str) -> None:
        if self.tab_label_depth is not None:
            if self.stack and self.stack[-1] == "" and data.strip():
                self.tab_labels.append(html.unescape(data.strip()))
            return
        if self.dropping:
            return
        self._emit(html.escape(data, quote=False))

    def xhtml(self) -> str:
        self.close()
        return "".join(self.out)


def _document(title: str, language: str, body: str, css: str = "../css/book.css") -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE html>\n'
        f'<html xmlns="{XHTML_NS}" xmlns:epub="http://www.idpf.org/2007/ops" lang="{language}" xml:lang="{language}">\n'
        f'<head><meta charset="utf-8"/><title>{html.escape(title)}</title>'
        f'<link rel="stylesheet" type="text/css" href="{css}"/></head>\n<body>\n{body}\n</body>\n</html>\n'
    )


def _pages(language: str) -> list[GuidePage]:
    pages = GuidePage.objects.filter(language=language, guide__is_published=True).select_related("guide")
    return list(pages.order_by("guide__order"))


def book_hash(language: str) -> str:
    """What the book in `language` is made of: the guides' rendered text, the figures' data, the
    fonts and style sheet, and this module."""
    digest = hashlib.sha256(f"{BOOK_FORMAT}|{language}|{figures_state()}|{settings.SITE_URL}".encode())
    for page in _pages(language):
        digest.update(f"{page.guide.slug}|{page.guide.order}|{page.title}|{page.summary}".encode())
        digest.update(page.body_html.encode())
    for path in [*(_font_path(name) for name in FONTS), BOOK_CSS, Path(__file__)]:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# The books' style sheet: beside this module, not in static/, as its font URLs are the book's own
# layout (EPUB/fonts/), which the site's collectstatic could not resolve.
BOOK_CSS = Path(__file__).resolve().parent / "book.css"


def _static_path(name: str) -> Path:
    found = finders.find(name)
    if not found:
        raise FileNotFoundError(f"static file {name} not found")
    return Path(found)


def _font_path(name: str) -> Path:
    return _static_path(f"vendor/fonts/{name}")


def books_dir() -> Path:
    return Path(settings.MEDIA_ROOT) / BOOKS_FOLDER


def book_filename(language: str, digest: str) -> str:
    return f"gradient-accumulation-{language}-{digest}.epub"


@dataclass(frozen=True)
class Book:
    path: Path
    language: str

    @property
    def url(self) -> str:
        return f"{settings.MEDIA_URL}{BOOKS_FOLDER}/{self.path.name}"

    @property
    def size(self) -> int:
        return self.path.stat().st_size


def current_book(language: str) -> Book | None:
    """The newest book written in `language` (the course page links it), or None."""
    found = sorted(books_dir().glob(f"gradient-accumulation-{language}-*.epub"), key=lambda p: p.stat().st_mtime)
    return Book(found[-1], language) if found else None


def books_state() -> str:
    """Which books exist: part of the content hash, so the course page links a book once written."""
    return ",".join(sorted(path.name for path in books_dir().glob("*.epub"))) if books_dir().is_dir() else ""


def _chapters(language: str, pages: list[GuidePage]) -> list[Chapter]:
    links = {page.guide.slug: chapter_name(page.guide.order) for page in pages}
    chapters = []
    for page in pages:
        writer = XHTMLWriter(page.guide.slug, links, "solutions.xhtml")
        writer.feed(fill_static_figures(page.body_html, language))
        body = writer.xhtml()
        heading = _("Guide %(n)s") % {"n": page.guide.order}
        article = (
            f'<section epub:type="chapter" role="doc-chapter" id="{page.guide.slug}">\n'
            f'<p class="eyebrow">{html.escape(heading)}</p>\n<h1>{html.escape(page.title)}</h1>\n'
            f'<p class="lead">{html.escape(page.summary)}</p>\n{body}\n</section>'
        )
        chapters.append(Chapter(page, links[page.guide.slug], article, writer.solutions))
    return chapters


def _solutions_body(chapters: list[Chapter]) -> str:
    title = html.escape(_("Solutions"))
    parts = [f'<section epub:type="backmatter" role="doc-appendix" id="solutions">\n<h1>{title}</h1>']
    for chapter in chapters:
        heading = _("Guide %(n)s") % {"n": chapter.page.guide.order}
        parts.append(f"<h2>{html.escape(heading)} · {html.escape(chapter.page.title)}</h2>")
        for number, solution in enumerate(chapter.solutions, start=1):
            back = f"{chapter.name}#exercise-{chapter.page.guide.slug}-{number}"
            parts.append(
                f'<section class="book-solution" id="{solution.anchor}">\n'
                f'<h3><a href="{back}">{html.escape(solution.exercise)}</a></h3>\n{solution.body}\n</section>'
            )
    parts.append("</section>")
    return "\n".join(parts)


def _plain(title: str) -> str:
    return re.sub(r"<[^>]+>", "", title)


def _nav(language: str, title: str, chapters: list[Chapter]) -> str:
    items = []
    for chapter in chapters:
        sections = "".join(
            f'<li><a href="text/{chapter.name}#{entry["id"]}">{html.escape(_plain(entry["title"]))}</a></li>'
            for entry in chapter.page.toc
        )
        label = html.escape(f"{chapter.page.guide.order}. {chapter.page.title}")
        sections = f"<ol>{sections}</ol>" if sections else ""
        items.append(f'<li><a href="text/{chapter.name}">{label}</a>{sections}</li>')
    items.append(f'<li><a href="text/solutions.xhtml">{html.escape(_("Solutions"))}</a></li>')
    body = (
        f'<nav epub:type="toc" role="doc-toc" id="toc"><h1>{html.escape(_("Contents"))}</h1>\n<ol>\n'
        + "\n".join(items)
        + "\n</ol></nav>"
    )
    return _document(title, language, body, css="css/book.css")


def _title_page(language: str, title: str, pages: list[GuidePage]) -> str:
    body = (
        f'<section epub:type="titlepage" id="title-page"><h1>{html.escape(title)}</h1>\n'
        f'<p class="lead">{html.escape(_("A free course on gradient accumulation, in English, Hindi and French."))}'
        "</p>\n"
        f'<p><a href="{html.escape(settings.SITE_URL)}">{html.escape(settings.SITE_URL)}</a></p></section>'
    )
    return _document(title, language, body)


def _package(language: str, title: str, digest: str, chapters: list[Chapter], solutions_properties: list[str]) -> str:
    identifier = uuid.uuid5(uuid.NAMESPACE_URL, f"{settings.SITE_URL}/book/{language}")
    modified = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    items = [
        '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>',
        '<item id="css" href="css/book.css" media-type="text/css"/>',
        '<item id="title-page" href="text/title.xhtml" media-type="application/xhtml+xml"/>',
    ]
    items += [f'<item id="font-{i}" href="fonts/{name}" media-type="font/woff2"/>' for i, name in enumerate(FONTS)]
    for chapter in chapters:
        properties = f' properties="{" ".join(chapter.properties)}"' if chapter.properties else ""
        item = f'id="{chapter.name[:-6]}" href="text/{chapter.name}" media-type="application/xhtml+xml"'
        items.append(f"<item {item}{properties}/>")
    properties = f' properties="{" ".join(solutions_properties)}"' if solutions_properties else ""
    items.append(f'<item id="solutions" href="text/solutions.xhtml" media-type="application/xhtml+xml"{properties}/>')
    spine = ['<itemref idref="title-page"/>', '<itemref idref="nav"/>']
    spine += [f'<itemref idref="{chapter.name[:-6]}"/>' for chapter in chapters] + ['<itemref idref="solutions"/>']
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" '
        f'xml:lang="{language}">\n'
        '<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
        f'<dc:identifier id="book-id">urn:uuid:{identifier}</dc:identifier>\n'
        f"<dc:title>{html.escape(title)}</dc:title>\n<dc:language>{language}</dc:language>\n"
        f"<dc:creator>{html.escape(_('Gradient Accumulation Course'))}</dc:creator>\n"
        f"<dc:source>{html.escape(settings.SITE_URL)}</dc:source>\n"
        f'<meta property="dcterms:modified">{modified}</meta>\n'
        f'<meta property="schema:accessMode">textual</meta>\n<meta property="schema:accessMode">visual</meta>\n'
        f"<!-- book {digest} -->\n</metadata>\n<manifest>\n"
        + "\n".join(items)
        + "\n</manifest>\n<spine>\n"
        + "\n".join(spine)
        + "\n</spine>\n</package>\n"
    )


CONTAINER = (
    '<?xml version="1.0" encoding="utf-8"?>\n'
    '<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">\n'
    '<rootfiles><rootfile full-path="EPUB/package.opf" media-type="application/oebps-package+xml"/></rootfiles>\n'
    "</container>\n"
)


def _well_formed(name: str, text: str) -> str:
    """Refuses to write a book whose XML a reader would reject (a guide's HTML the writer misread)."""
    try:
        ElementTree.fromstring(text.encode())
    except ElementTree.ParseError as exc:
        raise ValueError(f"{name} is not well-formed XML: {exc}") from exc
    return text


def write_book(language: str, path: Path) -> Path:
    """The EPUB of the course in `language`, written at `path`."""
    with translation.override(language):
        pages = _pages(language)
        title = _("Gradient Accumulation Course")
        chapters = _chapters(language, pages)
        solutions = _document(_("Solutions"), language, _solutions_body(chapters))
        solutions_properties = [name for name, tag in (("mathml", "<math"), ("svg", "<svg")) if tag in solutions]
        files = {
            "EPUB/nav.xhtml": _nav(language, title, chapters),
            "EPUB/text/title.xhtml": _title_page(language, title, pages),
            **{
                f"EPUB/text/{chapter.name}": _document(chapter.page.title, language, chapter.body)
                for chapter in chapters
            },
            "EPUB/text/solutions.xhtml": solutions,
            "EPUB/package.opf": _package(language, title, path.stem, chapters, solutions_properties),
        }
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w") as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip", compress_type=zipfile.ZIP_STORED)
        book.writestr("META-INF/container.xml", CONTAINER, compress_type=zipfile.ZIP_DEFLATED)
        for name, text in files.items():
            book.writestr(name, _well_formed(name, text), compress_type=zipfile.ZIP_DEFLATED)
        book.write(BOOK_CSS, "EPUB/css/book.css", compress_type=zipfile.ZIP_DEFLATED)
        for font in FONTS:
            book.write(_font_path(font), f"EPUB/fonts/{font}", compress_type=zipfile.ZIP_STORED)  # woff2: compressed
    partial.replace(path)  # a reader following the course page's link never gets half a book
    return path


@dataclass(frozen=True)
class BuildResult:
    language: str
    path: Path
    written: bool  # False: the current book was already there


def build_book(language: str, force: bool = False) -> BuildResult:
    """Writes the book in `language` unless the current one exists; removes older ones after."""
    path = books_dir() / book_filename(language, book_hash(language))
    written = force or not path.exists()
    if written:
        write_book(language, path)
    for old in books_dir().glob(f"gradient-accumulation-{language}-*.epub"):
        if old != path:
            old.unlink(missing_ok=True)
    return BuildResult(language, path, written)


def book_manifest(path: Path) -> dict:
    """The package's items by href (for tests and tools): media type and properties."""
    with zipfile.ZipFile(path) as book:
        package = ElementTree.fromstring(book.read("EPUB/package.opf"))
    ns = {"opf": "http://www.idpf.org/2007/opf"}
    return {
        item.get("href"): {"media-type": item.get("media-type"), "properties": item.get("properties", "")}
        for item in package.findall("opf:manifest/opf:item", ns)
    }
