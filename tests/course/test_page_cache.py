"""Public pages cached whole for visitors without a session: served without the database, the
same for every such visitor, never a learner's own page, and retired when what they show changes."""

import pytest
from django.core import mail
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from course.models import GuidePage
from course.page_cache import content_hash, page_key


@pytest.fixture
def synced_content(db, guides_synced_for_module):
    """The real content, synced once for this module: its every database test reads it (tests/conftest.py)."""


pytestmark = pytest.mark.django_db

URL = "/en/guides/the-accumulation-loop/"


def test_a_cached_page_is_served_to_another_visitor_without_touching_the_database(
    synced_content, django_assert_num_queries
):
    first = Client().get(URL)
    with django_assert_num_queries(0):
        second = Client().get(URL)
    assert second.status_code == 200 and second.content == first.content
    assert second["Content-Language"] == "en" and second["X-Frame-Options"] == "DENY"
    assert "Cookie" in second["Vary"] and "Content-Security-Policy" in second


def test_a_cached_page_carries_no_csrf_token_and_sets_no_cookie(synced_content):
    Client().get(URL)
    returning = Client()
    returning.cookies["csrftoken"] = "returningVisitor0123456789abcdef"
    for response in (Client().get(URL), returning.get(URL)):
        assert "csrfmiddlewaretoken" not in response.content.decode()
        assert "X-CSRFToken" not in response.content.decode()
        assert not response.cookies


def test_the_newsletter_form_of_a_cached_page_works_without_a_token(synced_content):
    visitor = Client(enforce_csrf_checks=True)
    visitor.get(URL)
    response = visitor.post(
        "/en/newsletter/", {"email": "reader@example.com"}, HTTP_HX_REQUEST="true", HTTP_ORIGIN="http://testserver"
    )
    assert response.status_code == 200 and mail.outbox[0].to == ["reader@example.com"]
    assert "HX-Request" in response["Vary"]


def test_each_language_has_its_own_page(synced_content):
    Client().get(URL)
    french = Client().get(URL.replace("/en/", "/fr/"))
    assert french["Content-Language"] == "fr"
    assert french.content != Client().get(URL).content


def test_a_changed_guide_is_shown_at_once_and_retires_the_old_page(synced_content):
    before = content_hash()
    assert "A renamed loop" not in Client().get(URL).content.decode()
    page = GuidePage.objects.get(guide__slug="the-accumulation-loop", language="en")
    page.title = "A renamed loop"
    page.save()
    assert content_hash() != before
    assert "A renamed loop" in Client().get(URL).content.decode()
    assert "A renamed loop" in Client().get("/en/guides/").content.decode()  # every page of the course


def test_signed_in_learners_get_their_own_page_and_it_is_never_cached(learner_client, synced_content):
    Client().get(URL)
    own = learner_client.get(URL).content.decode()
    assert "Dashboard" in own and "csrfmiddlewaretoken" in own  # the log-out form has its token
    assert "Dashboard" not in Client().get(URL).content.decode()


def test_query_strings_and_unknown_pages_are_never_served_from_the_cache(synced_content):
    Client().get(URL)
    gzip = {"HTTP_ACCEPT_ENCODING": "gzip"}
    cached = {Client().get(URL, **gzip).content for _ in range(3)}
    rendered = {Client().get(URL + "?utm_source=newsletter", **gzip).content for _ in range(3)}
    assert len(cached) == 1  # the one compressed body stored with the page
    # Rendered, and compressed each time with GZipMiddleware's random padding (against BREACH): the
    # view itself reads nothing from the database now, its guides coming from the cache too.
    assert len(rendered) == 3
    assert Client().get("/en/guides/no-such-guide/").status_code == 404
    assert Client().get("/en/guides/no-such-guide/").status_code == 404


def test_the_quiz_landing_page_is_cached_and_its_form_fetches_its_token_when_used(synced_content):
    from quizzes.services import quizzes_sync

    quizzes_sync()
    url = "/en/quizzes/the-accumulation-loop/"
    Client().get(url)
    html = Client().get(url).content.decode()
    assert 'data-csrf-from="/en/csrf-token/"' in html and 'name="csrfmiddlewaretoken" value=""' in html
    visitor = Client(enforce_csrf_checks=True)
    token = visitor.get("/en/csrf-token/").json()["token"]
    assert visitor.post(url + "start/", {"csrfmiddlewaretoken": ""}).status_code == 403
    assert visitor.post(url + "start/", {"csrfmiddlewaretoken": token}).status_code == 302


def test_the_csrf_token_answer_is_never_cached(client):
    response = client.get("/en/csrf-token/")
    assert "no-store" in response["Cache-Control"] and response.cookies["csrftoken"].value


@pytest.fixture
def redis_down(settings):
    """The cache pointed at a port where nothing listens, as when Redis has stopped."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1},
        }
    }


def test_guides_are_still_served_and_synced_while_redis_is_down(client, synced_content, redis_down):
    from course.services import guides_sync

    assert guides_sync()["unchanged"] == 21  # the set-up syncs before the run command starts Redis
    page = GuidePage.objects.get(guide__slug="the-accumulation-loop", language="en")
    page.title = "Rendered without a cache"
    page.save()
    response = client.get(URL)
    assert response.status_code == 200 and "Rendered without a cache" in response.content.decode()


def test_a_signed_in_learners_guide_page_is_drawn_without_the_cache_while_redis_is_down(
    learner_client, synced_content, redis_down
):
    """The article and the figures' panels are kept in the cache once drawn; without it, drawn."""
    response = learner_client.get("/en/guides/normalization-and-accumulation/")
    page = response.content.decode()
    assert response.status_code == 200 and 'id="explore-batchnorm-n-sweep-loss"' in page and 'id="guide-body"' in page


def test_a_change_made_by_another_process_is_served_at_once(synced_content):
    from django.core.cache import cache

    from course import page_cache

    Client().get(URL)
    GuidePage.objects.filter(guide__slug="the-accumulation-loop", language="en").update(title="Changed elsewhere")
    cache.delete(page_cache.HASH_KEY)  # what a content sync in another process does
    assert "Changed elsewhere" in Client().get(URL).content.decode()


def test_a_long_path_is_cached_under_a_short_key_of_its_own():
    long_path = "/en/certificates/" + "x" * 500 + "/"
    key = page_key(long_path)
    assert len(key) < 250  # Django's CacheKeyWarning begins at 250
    assert key != page_key(long_path[:-2] + "y/")
    assert page_key("/en/guides/") == "course:page:v2:/en/guides/"


# A signed-in learner's pages are rendered for them, around fragments that are the same for everyone
# (the guide's article, the lists of guides) and cached under the content hash.


def article(html: str) -> str:
    return html[html.index("<article>") : html.index("</article>")]


def body_reads(queries) -> list[str]:
    return [q["sql"] for q in queries if '"body_html"' in q["sql"]]


def test_a_signed_in_learner_gets_the_guide_article_from_the_cache(learner_client, synced_content):
    first = learner_client.get(URL).content.decode()
    with CaptureQueriesContext(connection) as queries:
        second = learner_client.get(URL).content.decode()
    assert body_reads(queries) == []  # the article (body and figures) came from the cache
    assert article(second) == article(first) and "Dashboard" in second


def test_a_changed_guide_retires_the_signed_in_learners_fragments_at_once(learner_client, synced_content):
    from course.page_cache import pages_changed

    for url in (URL, "/en/", "/en/guides/"):
        assert "A renamed loop" not in learner_client.get(url).content.decode()
    GuidePage.objects.filter(guide__slug="the-accumulation-loop", language="en").update(title="A renamed loop")
    pages_changed()  # what a content sync does after its bulk update (course/services.py)
    for url in (URL, "/en/", "/en/guides/"):
        assert "A renamed loop" in learner_client.get(url).content.decode()


def test_each_language_has_its_own_fragments(learner_client, synced_content):
    english = {path: learner_client.get(path).content.decode() for path in (URL, "/en/", "/en/guides/")}
    french = {path: learner_client.get(path.replace("/en/", "/fr/")).content.decode() for path in english}
    assert article(french[URL]) != article(english[URL])
    assert "Les guides" in french["/en/"] and "guides dans l" in french["/en/guides/"]


def test_one_learners_progress_and_token_are_never_shown_to_another(learner_client, synced_content, django_user_model):
    import re

    learner_client.get(URL)  # read: the overview shows it to this learner
    assert "Read, quiz not taken" in learner_client.get("/en/course/").content.decode()
    other = Client()
    other.force_login(django_user_model.objects.create_user("ravi", "ravi@example.com", "another Pass phrase 7"))
    assert "Read, quiz not taken" not in other.get("/en/course/").content.decode()  # they have read nothing
    for path in (URL, "/en/", "/en/guides/", "/en/course/"):
        mine = learner_client.get(path).content.decode()
        theirs = other.get(path).content.decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', mine).group(1)
        assert token not in theirs  # the log-out form's token is each learner's own, never cached


def test_signed_in_pages_are_rendered_without_fragments_while_redis_is_down(learner_client, synced_content, redis_down):
    for path in (URL, "/en/", "/en/guides/"):
        response = learner_client.get(path)
        assert response.status_code == 200 and "Dashboard" in response.content.decode()
    assert "guide-body" in learner_client.get(URL).content.decode()
