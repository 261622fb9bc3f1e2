"""The two links a guide page offers outside the site, each only where the operator says where it
points: "Open in Colab" beside the notebook download (the notebooks, written by `manage.py
export_notebooks`, in a public GitHub repository) and the guide's discussion in a forum. Both are
right on a page served whole from the cache and in a signed-in learner's cached article."""

import html
import json
import re

import nbformat
import pytest
from django.core.management import call_command
from django.test import Client, override_settings

from course.models import GuidePage
from course.page_cache import content_hash

pytestmark = pytest.mark.django_db

SLUG = "the-accumulation-loop"
LINKS = {
    "NOTEBOOK_REPOSITORY_URL": "https://github.com/course-org/course-notebooks",
    "NOTEBOOK_REPOSITORY_BRANCH": "main",
    "NOTEBOOK_REPOSITORY_PATH": "notebooks",
    "DISCUSSION_URL_PATTERN": "https://forum.example.org/t/{slug}?lang={language}",
}
COLAB = (
    "https://colab.research.google.com/github/course-org/course-notebooks/blob/main/notebooks/{slug}.{language}.ipynb"
)
FORUM = "https://forum.example.org/t/{slug}?lang={language}"


@pytest.fixture
def synced_content(db, guides_synced_for_module):
    """The real content, synced once for this module: its every database test reads it (tests/conftest.py)."""


def hrefs(response) -> list[str]:
    return [html.unescape(href) for href in re.findall(r'href="([^"]+)"', response.content.decode())]


def outside(response) -> list[str]:
    return [href for href in hrefs(response) if "colab.research.google.com" in href or "forum.example.org" in href]


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_no_colab_or_discussion_link_unless_the_operator_sets_where_they_point(synced_content, client, language):
    page = client.get(f"/{language}/guides/{SLUG}/")
    assert page.status_code == 200
    assert f"/{language}/guides/{SLUG}/notebook/" in hrefs(page)  # the download is always there
    assert outside(page) == []
    assert "colab" not in page.content.decode().lower()


@override_settings(**LINKS)
@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_a_public_page_links_its_notebook_in_colab_and_its_discussion(synced_content, language):
    expected = [COLAB.format(slug=SLUG, language=language), FORUM.format(slug=SLUG, language=language)]
    first, cached = Client().get(f"/{language}/guides/{SLUG}/"), Client().get(f"/{language}/guides/{SLUG}/")
    assert outside(first) == expected
    assert outside(cached) == expected  # the same page, from the cache
    shown = {"en": ["Open in Colab", "Discuss this guide"], "hi": ["Colab में खोलें", "इस गाइड पर चर्चा करें"]}
    shown["fr"] = ["Ouvrir dans Colab", "Discuter de ce guide"]
    assert all(text in first.content.decode() for text in shown[language])


@override_settings(**LINKS)
def test_a_signed_in_learners_cached_article_has_the_links_too(synced_content, learner_client):
    expected = [COLAB.format(slug=SLUG, language="hi"), FORUM.format(slug=SLUG, language="hi")]
    assert outside(learner_client.get(f"/hi/guides/{SLUG}/")) == expected
    assert outside(learner_client.get(f"/hi/guides/{SLUG}/")) == expected  # the article from its fragment


def test_setting_the_links_retires_the_pages_cached_without_them(synced_content, settings):
    before = content_hash()
    settings.NOTEBOOK_REPOSITORY_URL = LINKS["NOTEBOOK_REPOSITORY_URL"]
    with_colab = content_hash()
    settings.DISCUSSION_URL_PATTERN = LINKS["DISCUSSION_URL_PATTERN"]
    assert len({before, with_colab, content_hash()}) == 3


def test_export_notebooks_writes_every_guide_page_where_colab_looks_for_it(synced_content, tmp_path, client):
    call_command("export_notebooks", str(tmp_path / "notebooks"))
    pages = GuidePage.objects.filter(guide__is_published=True).select_related("guide")
    written = sorted(path.name for path in (tmp_path / "notebooks").iterdir())
    assert written == sorted(f"{page.guide.slug}.{page.language}.ipynb" for page in pages)
    assert len(written) == 3 * 7
    path = tmp_path / "notebooks" / f"{SLUG}.hi.ipynb"
    nbformat.validate(nbformat.read(path, as_version=4))
    downloaded = client.get(f"/hi/guides/{SLUG}/notebook/")
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(downloaded.content)  # the same notebook
    first = path.read_bytes()
    call_command("export_notebooks", str(tmp_path / "notebooks"))
    assert path.read_bytes() == first  # an unchanged guide exports the same file: nothing new to commit
    with override_settings(**LINKS):
        colab = outside(Client().get(f"/hi/guides/{SLUG}/"))[0]
    assert colab.endswith(f"/blob/main/notebooks/{path.name}")  # the name Colab asks GitHub for
