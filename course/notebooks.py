"""A guide page as a Jupyter notebook: its runnable code as code cells, the prose around it as
Markdown cells, built from the page's own Markdown each time (no copy is kept to rot). The test
suite executes every notebook (tests/course/test_notebooks.py)."""

import re
from urllib.parse import urljoin

import nbformat
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from .content import FRAMEWORK_FENCE_RE, TAB_RE, is_runnable
from .markdown_text import blocks
from .models import GuidePage
from .outside_links import notebook_name
from .versions import tested_with_text

FIGURE_RE = re.compile(r"^\{\{\s*figure:\s*(?P<name>[\w./-]+)\s*\}\}\s*$")
HEADING_ID_RE = re.compile(r"^(#{1,6} .*?)\s*\{#[\w-]+\}\s*$")
DETAILS_RE = re.compile(r"^\s*</?details\b[^>]*>\s*$")
SUMMARY_RE = re.compile(r"^\s*<summary>(?P<text>.*)</summary>\s*$")
TORCH_ONLY = [("PyTorch", "torch")]
KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}


def guide_notebook(page: GuidePage) -> nbformat.NotebookNode:
    """The notebook of one guide page, in the page's language."""
    with translation.override(page.language):
        url = urljoin(settings.SITE_URL, reverse("course:guide_detail", args=[page.guide.slug]))
        cells = [nbformat.v4.new_markdown_cell(_intro(page, url))]
        for kind, text in _segments(page.body_markdown):
            if kind == "code":
                cells.append(nbformat.v4.new_code_cell(text))
            elif text.strip():
                cells.append(nbformat.v4.new_markdown_cell(_notebook_markdown(text, url)))
    for number, cell in enumerate(cells):
        cell.id = f"cell-{number}"  # not nbformat's random ids: an unchanged guide exports the same file
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata.update(kernelspec=KERNEL, language_info={"name": "python"})
    notebook.metadata["course"] = {"guide": page.guide.slug, "language": page.language, "source": page.source_hash}
    return notebook


def notebook_filename(page: GuidePage) -> str:
    return notebook_name(page.guide.slug, page.language)


def _intro(page: GuidePage, url: str) -> str:
    versions = tested_with_text(TORCH_ONLY)  # the notebook's code needs PyTorch alone
    return "\n\n".join(
        [
            f"# {page.title}",
            page.summary,
            _("This notebook holds the runnable code of the guide [%(title)s](%(url)s), with its text.")
            % {"title": page.title, "url": url},
            _("Tested with %(versions)s, on the CPU.") % {"versions": versions},
        ]
    )


def _segments(markdown: str) -> list[tuple[str, str]]:
    """[("markdown", text) or ("code", code)] in page order: runnable fences become code, every other
    line (other fences included, shown as code in Markdown) stays prose."""
    segments, prose = [], []
    for block in blocks(markdown):
        if is_runnable(block):
            segments += [("markdown", "\n".join(prose)), ("code", block.text.strip("\n"))]
            prose = []
        else:
            prose.extend(block.lines)
    segments.append(("markdown", "\n".join(prose)))
    return segments


def _notebook_markdown(text: str, url: str) -> str:
    """The site's own Markdown extensions written as Jupyter shows them: heading ids dropped, a
    figure as a link to it on the guide page, a collapsed solution as a plain heading (a notebook
    cannot fold a block that holds code cells), a framework tab as its name over its code, shown and
    not run (three of the four need Accelerate, Lightning or Transformers; the notebook needs PyTorch
    alone)."""
    lines, in_tab = [], False
    for line in text.splitlines():
        if tab := TAB_RE.match(line):
            lines.append(f"**{tab['label']}**")
            in_tab = True
            continue
        if in_tab and (line.startswith("    ") or not line.strip()):
            lines.append("```python" if FRAMEWORK_FENCE_RE.match(line.strip()) else line[4:])
            continue
        in_tab = False
        if DETAILS_RE.match(line):
            continue
        if summary := SUMMARY_RE.match(line):
            lines.append(f"**{summary['text']}**")
        elif FIGURE_RE.match(line):
            lines.append(
                _("*Figure: see it on the [guide page](%(url)s), drawn from real training runs.*") % {"url": url}
            )
        elif heading := HEADING_ID_RE.match(line):
            lines.append(heading[1])
        else:
            lines.append(line)
    return "\n".join(lines).strip("\n")
