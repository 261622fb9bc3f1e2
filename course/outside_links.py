"""A guide page's links to places outside the site, each only where the operator has said where it
points (config/settings.py): its notebook opened in Google Colab, and its discussion in a forum."""

from urllib.parse import quote, urlsplit

from django.conf import settings

COLAB_GITHUB = "https://colab.research.google.com/github/"


def notebook_name(slug: str, language: str) -> str:
    """The notebook's file name: the download's and the one `export_notebooks` writes."""
    return f"{slug}.{language}.ipynb"


def colab_url(slug: str, language: str) -> str:
    """Where Colab opens the guide's notebook from the public GitHub repository; "" when none is set.

    Colab's address for a notebook on GitHub is
    https://colab.research.google.com/github/<owner>/<repo>/blob/<branch>/<path to the .ipynb>
    (Colab's own "Using Google Colab with GitHub" notebook, googlecolab/colabtools,
    notebooks/colab-github-demo.ipynb: "Loading Public Notebooks Directly from GitHub").
    """
    if not settings.NOTEBOOK_REPOSITORY_URL:
        return ""
    repository = urlsplit(settings.NOTEBOOK_REPOSITORY_URL).path.strip("/")  # owner/repo
    path = "/".join(part for part in (settings.NOTEBOOK_REPOSITORY_PATH, notebook_name(slug, language)) if part)
    return f"{COLAB_GITHUB}{repository}/blob/{quote(settings.NOTEBOOK_REPOSITORY_BRANCH)}/{quote(path)}"


def discussion_url(slug: str, language: str) -> str:
    """The guide's discussion in the forum; "" when no forum is set."""
    pattern = settings.DISCUSSION_URL_PATTERN
    return pattern.format(slug=quote(slug), language=quote(language)) if pattern else ""


def settings_state() -> str:
    """What these links depend on, for the content hash of cached pages (course/page_cache.py)."""
    return repr(
        (
            settings.NOTEBOOK_REPOSITORY_URL,
            settings.NOTEBOOK_REPOSITORY_BRANCH,
            settings.NOTEBOOK_REPOSITORY_PATH,
            settings.DISCUSSION_URL_PATTERN,
        )
    )
