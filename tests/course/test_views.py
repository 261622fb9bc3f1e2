"""Guide pages, languages and search, through the real URL configuration."""

import pytest
from django.urls import reverse
from django.utils import timezone

pytestmark = pytest.mark.django_db

SLUG = "the-accumulation-loop"


@pytest.mark.parametrize(
    ("accept_language", "expected"),
    [("hi-IN,hi;q=0.9,en;q=0.5", "/hi/"), ("fr-FR,fr;q=0.9", "/fr/"), ("de-DE", "/en/"), ("", "/en/")],
)
def test_the_root_negotiates_the_language_from_the_browser(client, accept_language, expected):
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=accept_language)
    assert response.status_code == 302
    assert response["Location"] == expected


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_a_guide_page_has_the_whole_anatomy(client, synced_content, language):
    response = client.get(f"/{language}/guides/{SLUG}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    for anchor in ('id="overview"', 'id="deep-dive"', 'id="faq"', 'href="#overview"', 'id="newsletter"', 'id="try-it"'):
        assert anchor in html
    assert f'href="/{language}/quizzes/{SLUG}/"' in html
    assert f'href="/{language}/labs/presets/forgot-divide-sgd/"' in html
    assert 'rel="next"' in html and 'rel="prev"' in html
    assert f'href="/{language}/support/"' in html


def test_a_guide_page_links_to_itself_in_the_other_languages(client, synced_content):
    html = client.get(f"/hi/guides/{SLUG}/").content.decode()
    assert f'href="/en/guides/{SLUG}/" lang="en"' in html
    assert f'href="/fr/guides/{SLUG}/" lang="fr"' in html
    assert f'hreflang="fr" href="http://127.0.0.1:8000/fr/guides/{SLUG}/"' in html


def test_ui_strings_are_translated(client, synced_content):
    assert "Guides" in client.get("/en/").content.decode()
    hindi = client.get("/hi/").content.decode()
    french = client.get("/fr/").content.decode()
    assert "गाइड" in hindi and "Start the course" not in hindi
    assert "Commencer le cours" in french


def test_an_unknown_guide_is_a_friendly_404(client, synced_content):
    response = client.get("/en/guides/no-such-guide/")
    assert response.status_code == 404
    assert "could not find" in response.content.decode()


def test_an_unpublished_guide_is_gone(client, synced_content):
    from course.models import Guide

    Guide.objects.filter(slug=SLUG).update(is_published=False)
    assert client.get(f"/en/guides/{SLUG}/").status_code == 404


def test_reading_a_guide_signed_in_is_remembered_on_the_dashboard(learner_client, synced_content):
    learner_client.get(f"/en/guides/{SLUG}/")
    dashboard = learner_client.get(reverse("accounts:dashboard")).content.decode()
    assert f"/en/guides/{SLUG}/" in dashboard


def test_search_finds_guides_in_the_current_language_only(client, synced_content):
    english = client.get("/en/search/", {"q": "BatchNorm"}).content.decode()
    assert "/en/guides/normalization-and-accumulation/" in english
    french = client.get("/fr/search/", {"q": "BatchNorm"}).content.decode()
    assert "/fr/guides/normalization-and-accumulation/" in french and "/en/guides/" not in french


def test_search_answers_htmx_with_the_results_fragment_only(client, synced_content):
    response = client.get("/en/search/", {"q": "zero_grad"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="search-results"') and "<html" not in html


def test_search_with_nothing_found_says_so(client, synced_content):
    html = client.get("/en/search/", {"q": "zzzqqq"}).content.decode()
    assert "0 guides match" in html


def test_pages_carry_security_headers(client, synced_content):
    response = client.get(f"/en/guides/{SLUG}/")
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"


def test_sync_is_idempotent_and_unpublishes_removed_guides(db, tmp_path, settings):
    from course.models import Guide
    from course.services import guides_sync

    first = guides_sync()
    assert first["created"] == 21  # seven guides in three languages
    assert guides_sync() == {"created": 0, "updated": 0, "unchanged": 21, "unpublished": 0}
    Guide.objects.create(slug="retired-guide", order=99)
    assert guides_sync()["unpublished"] == 1
    assert not Guide.objects.get(slug="retired-guide").is_published


@pytest.mark.parametrize(
    ("language", "sentence"), [("en", "{n} guides in order"), ("fr", "{n} guides dans l"), ("hi", "क्रम से {n} गाइड")]
)
def test_the_guide_index_counts_the_published_guides_from_the_data(client, synced_content, language, sentence):
    from django.core.cache import cache

    from course.models import Guide

    published = Guide.objects.filter(is_published=True).count()
    html = client.get(f"/{language}/guides/").content.decode()
    assert sentence.format(n=published) in html
    Guide.objects.filter(slug=SLUG).update(is_published=False)
    cache.clear()  # the index is a cached public page
    assert sentence.format(n=published - 1) in client.get(f"/{language}/guides/").content.decode()


def test_reading_a_guide_again_moves_only_its_last_read_time_at_most_once_a_minute(
    learner_client, learner, synced_content
):
    import time_machine

    from course.models import GuideRead
    from course.services import LAST_READ_PRECISION

    first_read = timezone.now()
    with time_machine.travel(first_read, tick=False) as traveller:
        learner_client.get(f"/en/guides/{SLUG}/")
        first = GuideRead.objects.get(user=learner, guide__slug=SLUG)
        traveller.shift(LAST_READ_PRECISION / 2)
        learner_client.get(f"/fr/guides/{SLUG}/")  # the same guide in another language, soon after
        assert GuideRead.objects.get(user=learner, guide__slug=SLUG).last_read_at == first_read
        traveller.shift(LAST_READ_PRECISION)
        learner_client.get(f"/hi/guides/{SLUG}/")
    again = GuideRead.objects.get(user=learner, guide__slug=SLUG)
    assert GuideRead.objects.filter(user=learner).count() == 1
    assert again.first_read_at == first.first_read_at == first_read
    assert again.last_read_at == first_read + LAST_READ_PRECISION * 3 / 2


def test_a_signed_in_learner_reads_the_guides_article_only_until_it_is_cached(learner_client, synced_content):
    """The article is the same for everyone: once its fragment is cached, the page's query reads
    the title and summary only, never the body, its contents or its narration."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    url = reverse("course:guide_detail", args=["what-is-gradient-accumulation"])
    with CaptureQueriesContext(connection) as first:
        drawn = learner_client.get(url).content.decode()
    with CaptureQueriesContext(connection) as second:
        cached = learner_client.get(url).content.decode()
    assert any('"body_html"' in query["sql"] for query in first.captured_queries)
    assert not any('"body_html"' in q["sql"] or '"toc"' in q["sql"] for q in second.captured_queries)
    article = drawn.split('id="guide-body"')[1].split("</article>")[0]
    assert len(article) > 10_000 and article == cached.split('id="guide-body"')[1].split("</article>")[0]
