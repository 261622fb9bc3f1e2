"""Guide pages cached for anonymous visitors: fast, yet each visitor's CSRF token is their own."""

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from course.models import GuidePage
from course.page_cache import CSRF_PLACEHOLDER

pytestmark = pytest.mark.django_db

URL = "/en/guides/the-accumulation-loop/"
TOKEN_RE = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def page_token(client: Client) -> str:
    html = client.get(URL).content.decode()
    assert CSRF_PLACEHOLDER not in html
    return TOKEN_RE.search(html).group(1)


def without_token(html: str) -> str:
    return html.replace(TOKEN_RE.search(html).group(1), "TOKEN")


def subscribe(client: Client, token: str, email: str) -> int:
    return client.post("/en/newsletter/", {"email": email, "csrfmiddlewaretoken": token}).status_code


def test_a_cached_page_is_served_without_touching_the_database(client, synced_content, django_assert_num_queries):
    first = client.get(URL)
    with django_assert_num_queries(0):
        second = Client().get(URL)
    assert second.status_code == 200
    assert without_token(second.content.decode()) == without_token(first.content.decode())


def test_each_visitor_of_a_cached_page_gets_a_token_that_works_with_their_own_cookie(synced_content):
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    first_token, second_token = page_token(first), page_token(second)  # the second comes from the cache
    assert first.cookies["csrftoken"].value != second.cookies["csrftoken"].value
    assert subscribe(second, first_token, "someone@example.com") == 403
    assert subscribe(second, second_token, "second@example.com") == 200
    assert subscribe(first, first_token, "first@example.com") == 200


def test_the_htmx_header_carries_the_visitors_token_too(synced_content):
    visitor = Client()
    visitor.get(URL)
    html = Client().get(URL).content.decode()
    header_token = re.search(r'"X-CSRFToken": "([^"]+)"', html).group(1)
    assert header_token == TOKEN_RE.search(html).group(1) and header_token != CSRF_PLACEHOLDER


def test_a_changed_guide_is_shown_at_once(client, synced_content):
    assert "A renamed loop" not in client.get(URL).content.decode()
    page = GuidePage.objects.get(guide__slug="the-accumulation-loop", language="en")
    page.title = "A renamed loop"
    page.save()
    assert "A renamed loop" in client.get(URL).content.decode()


def test_signed_in_learners_and_query_strings_are_never_served_from_the_cache(learner_client, synced_content):
    Client().get(URL)
    assert "Dashboard" in learner_client.get(URL).content.decode()
    with CaptureQueriesContext(connection) as queries:
        assert Client().get(URL + "?utm_source=newsletter").status_code == 200
    assert len(queries) > 0


def test_an_unknown_guide_is_not_cached(client, synced_content):
    assert client.get("/en/guides/no-such-guide/").status_code == 404
    assert client.get("/en/guides/no-such-guide/").status_code == 404


@pytest.fixture
def redis_down(settings):
    """The cache pointed at a port where nothing listens, as when Redis has stopped."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }


def test_guides_are_still_served_and_synced_while_redis_is_down(client, synced_content, redis_down):
    from course.services import guides_sync

    assert guides_sync()["unchanged"] == 18  # the set-up syncs before the run command starts Redis
    page = GuidePage.objects.get(guide__slug="the-accumulation-loop", language="en")
    page.title = "Rendered without a cache"
    page.save()
    response = client.get(URL)
    assert response.status_code == 200 and "Rendered without a cache" in response.content.decode()
