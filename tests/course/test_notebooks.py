"""Every guide page, in every language, downloads as a Jupyter notebook that is valid nbformat 4 and
runs from top to bottom on the CPU: a notebook that stops working fails the suite."""

import json
import os

import nbformat
import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import translation
from nbclient import NotebookClient

from course.content import framework_tab_sets, guide_folders, load_guide_file, runnable_blocks
from course.models import Guide, GuidePage
from course.notebooks import guide_notebook

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

LANGUAGES = [code for code, _ in settings.LANGUAGES]
SECONDS_PER_CELL = 300
SECONDS_PER_NOTEBOOK = 900  # pytest-timeout's limit for one notebook's whole run


def page_from_source(slug: str, language: str) -> GuidePage:
    """The guide page as the sync would store it (unsaved: building a notebook needs no database)."""
    source = load_guide_file(settings.CONTENT_DIR / "guides" / slug / f"{language}.md")
    return GuidePage(
        guide=Guide(slug=slug), language=language, title=source.meta["title"], summary=source.meta["summary"],
        body_markdown=source.body, source_hash=source.source_hash,
    )  # fmt: skip


PAGES = [
    pytest.param(folder.name, language, id=f"{folder.name}-{language}")
    for folder in guide_folders(settings.CONTENT_DIR)
    for language in LANGUAGES
]


@pytest.mark.parametrize(("slug", "language"), PAGES)
def test_the_notebook_holds_the_guides_runnable_code_in_order(slug, language):
    page = page_from_source(slug, language)
    notebook = guide_notebook(page)
    nbformat.validate(notebook)
    assert notebook.nbformat == 4
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    assert code == [block.strip("\n") for block in runnable_blocks(page.body_markdown)]
    prose = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert prose.startswith(f"# {page.title}")
    assert "{{ figure:" not in prose and "{#" not in prose and "<details" not in prose  # the site's own syntax
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")  # no stored outputs


@pytest.mark.timeout(SECONDS_PER_NOTEBOOK)
@pytest.mark.parametrize(("slug", "language"), PAGES)
def test_the_notebook_runs_from_top_to_bottom(slug, language, tmp_path):
    notebook = guide_notebook(page_from_source(slug, language))
    client = NotebookClient(
        notebook, timeout=SECONDS_PER_CELL, kernel_name="python3", resources={"metadata": {"path": tmp_path}}
    )
    client.execute(env={**os.environ, "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})  # raises on a failing cell
    ran = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert ran and all(cell.execution_count for cell in ran)


def test_a_notebook_that_fails_to_run_fails_the_test(tmp_path):
    page = page_from_source("the-accumulation-loop", "en")
    page.body_markdown += "\n``` { .python .runnable }\nraise RuntimeError('a rotten example')\n```\n"
    client = NotebookClient(guide_notebook(page), timeout=SECONDS_PER_CELL, kernel_name="python3")
    with pytest.raises(Exception, match="a rotten example"):
        client.execute()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_guide_page_links_its_notebook_download(client, synced_content, language):
    slug = "the-accumulation-loop"
    with translation.override(language):
        page = client.get(reverse("course:guide_detail", args=[slug]))
        url = reverse("course:guide_notebook", args=[slug])
    assert f'href="{url}" download' in page.content.decode()
    assert "PyTorch 2.13.0" in page.content.decode()  # the version tested, read from requirements.txt

    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/x-ipynb+json"
    assert response["Content-Disposition"] == f'attachment; filename="{slug}.{language}.ipynb"'
    notebook = nbformat.reads(response.content.decode(), as_version=4)
    nbformat.validate(notebook)
    stored = GuidePage.objects.get(guide__slug=slug, language=language)
    assert notebook.metadata["course"] == {"guide": slug, "language": language, "source": stored.source_hash}
    assert json.loads(response.content)["metadata"]["kernelspec"]["name"] == "python3"


def test_an_unknown_guide_has_no_notebook(client, synced_content):
    assert client.get(reverse("course:guide_notebook", args=["no-such-guide"])).status_code == 404


def test_the_course_page_says_which_versions_the_code_is_tested_with(client, synced_content, settings, tmp_path):
    from course.versions import tested_with_text

    assert "tested with PyTorch 2.13.0" in client.get(reverse("course:overview")).content.decode()
    # Read from the pins, not typed: other pins give other versions.
    (tmp_path / "requirements.txt").write_text("torch==9.9.9\nDjango==5.2.19\n", encoding="utf-8")
    (tmp_path / "requirements-dev.txt").write_text("-r requirements.txt\nlightning==2.9.1\n", encoding="utf-8")
    settings.BASE_DIR = tmp_path
    assert tested_with_text() == "PyTorch 9.9.9, Lightning 2.9.1"


@pytest.mark.parametrize("language", LANGUAGES)
def test_framework_tabs_are_shown_as_markdown_code_under_their_name_and_never_run(language):
    """A framework tab needs Accelerate, Lightning or Transformers, which the notebook does not."""
    page = page_from_source("the-accumulation-loop", language)
    notebook = guide_notebook(page)
    code = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "code")
    prose = "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert "accelerate" not in code and "lightning" not in code and "transformers" not in code
    for tabs in framework_tab_sets(page.body_markdown):
        for label, tab_code in tabs.items():
            assert f"**{label}**\n\n```python\n{tab_code}\n```" in prose
    assert '=== "' not in prose and ".framework" not in prose
