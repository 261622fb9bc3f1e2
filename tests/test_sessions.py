"""Sessions are Django's database sessions: a learner stays signed in, and keeps the quiz attempts of
their browser, whatever happens to Redis (a flush, or an outage). Marked integration so that they
run on PostgreSQL too (bin/test)."""

import pytest
from django.core.cache import cache

pytestmark = pytest.mark.integration

PASSWORD = "a long pass phrase"


@pytest.fixture
def signed_in(client, django_user_model):
    django_user_model.objects.create_user("ada", "ada@example.com", PASSWORD)
    assert client.login(username="ada", password=PASSWORD)
    return client


def is_signed_in(client) -> bool:
    return b'action="/en/accounts/logout/"' in client.get("/en/accounts/dashboard/").content


def test_a_learner_stays_signed_in_after_redis_is_flushed(signed_in):
    assert is_signed_in(signed_in)
    cache.clear()  # what FLUSHDB (or a Redis restart without persistence) does to the cache
    assert is_signed_in(signed_in)


def test_a_learner_stays_signed_in_while_redis_is_down(signed_in, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there, as when Redis has stopped
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1},
        }
    }
    assert is_signed_in(signed_in)


def test_signing_out_ends_the_session_for_good(signed_in):
    cookie = signed_in.cookies["sessionid"].value
    signed_in.post("/en/accounts/logout/")
    signed_in.cookies["sessionid"] = cookie  # the old cookie, sent again
    assert not is_signed_in(signed_in)
