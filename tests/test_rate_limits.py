"""The one rate-limit helper (config/ratelimit.py): rates come from settings.RATE_LIMITS, one name
is one counter, and when the cache cannot be reached every limiter lets requests through and logs
it. The limits on each endpoint are checked in tests/test_security.py and the apps' tests."""

import logging

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory
from django.urls import reverse

from config.env import env_rate
from config.ratelimit import limit_exceeded, rate_limit
from labs.throttle import submission_throttled


@pytest.fixture
def cache_down(settings):
    """The cache pointed at a port where nothing listens, as when Redis has stopped: every cache
    call raises redis's ConnectionError."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1},
        }
    }


def request_from(address: str):
    return RequestFactory().post("/", REMOTE_ADDR=address)


def test_a_rate_counts_per_name_and_per_address(clock_held, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "signup": "2/m", "login": "1/m"}
    assert [limit_exceeded(request_from("192.0.2.1"), "signup") for _ in range(3)] == [False, False, True]
    assert limit_exceeded(request_from("192.0.2.2"), "signup") is False  # another address, its own counter
    assert limit_exceeded(request_from("192.0.2.1"), "login") is False  # another name, its own counter


def test_addresses_in_one_ipv6_network_share_a_counter_and_a_bad_address_counts_as_unknown(clock_held, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "signup": "1/m"}
    settings.RATELIMIT_IPV6_MASK = 48
    assert limit_exceeded(request_from("2001:db8:1:2::7"), "signup") is False
    assert limit_exceeded(request_from("2001:db8:1:ffff::9"), "signup") is True  # the same /48
    assert limit_exceeded(request_from("2001:db8:2::1"), "signup") is False  # another network
    assert limit_exceeded(request_from("not-an-address"), "signup") is False
    assert limit_exceeded(request_from("0.0.0.0"), "signup") is True  # both are the unknown address


def test_behind_the_proxy_only_the_address_it_appended_is_counted(clock_held, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "signup": "1/m"}
    settings.BEHIND_PROXY = True

    def forwarded(chain: str):
        return RequestFactory().post("/", REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=chain)

    assert limit_exceeded(forwarded("198.51.100.1, 192.0.2.9"), "signup") is False
    assert limit_exceeded(forwarded("203.0.113.5, 192.0.2.9"), "signup") is True  # what the client wrote is ignored
    assert limit_exceeded(forwarded("192.0.2.10"), "signup") is False


def test_a_rate_changed_in_settings_applies_at_once(clock_held, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "signup": "1/m"}
    assert limit_exceeded(request_from("192.0.2.1"), "signup") is False
    assert limit_exceeded(request_from("192.0.2.1"), "signup") is True
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "signup": "5/m"}
    assert limit_exceeded(request_from("192.0.2.1"), "signup") is False


def test_a_limit_that_is_not_in_the_settings_stops_the_site_at_start():
    with pytest.raises(ImproperlyConfigured, match="no_such_limit"):
        rate_limit("no_such_limit")


def test_a_rate_from_the_environment_must_read_like_one(monkeypatch):
    monkeypatch.setenv("QUIZ_ANSWER_RATE", "100/5m")
    assert env_rate("QUIZ_ANSWER_RATE", "30/m") == "100/5m"
    monkeypatch.setenv("QUIZ_ANSWER_RATE", "thirty a minute")
    with pytest.raises(ImproperlyConfigured, match="QUIZ_ANSWER_RATE"):
        env_rate("QUIZ_ANSWER_RATE", "30/m")


def test_when_the_cache_is_down_a_limited_page_still_answers(client, learner, settings, cache_down, caplog):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "login": "1/m"}
    wrong = {"username": learner.username, "password": "not-the-password"}
    with caplog.at_level(logging.WARNING, logger="config.ratelimit"):
        codes = [client.post(reverse("accounts:login"), wrong).status_code for _ in range(3)]
    assert codes == [200, 200, 200]  # the form again with its error: not a 500, not a 429
    assert "rate limit 'login' not checked, the cache is unreachable" in caplog.text


def test_when_the_cache_is_down_lab_submissions_are_not_refused(learner, settings, cache_down, caplog):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "lab_submit": "1/h"}
    with caplog.at_level(logging.WARNING, logger="config.ratelimit"):
        throttled = [submission_throttled(request_from("192.0.2.1"), learner) for _ in range(2)]
    assert throttled == [False, False]  # stored, and dispatched once Redis is back
    assert "rate limit 'lab_submit' not checked" in caplog.text


@pytest.mark.parametrize(
    ("seconds", "en", "hi", "fr"),
    [
        (1, "1 second", "1 सेकंड", "1 seconde"),
        (45, "45 seconds", "45 सेकंड", "45 secondes"),
        (61, "2 minutes", "2 मिनट", "2 minutes"),  # rounded up: never less than the real wait
        (3600, "1 hour", "1 घंटा", "1 heure"),
        (3 * 3600 + 1, "3 hours and 1 minute", "3 घंटे और 1 मिनट", "3 heures et 1 minute"),
    ],
)
def test_a_wait_is_said_in_words_in_the_readers_language(seconds, en, hi, fr):
    from django.utils import translation

    from config.waits import wait_in_words

    for language, words in (("en", en), ("hi", hi), ("fr", fr)):
        with translation.override(language):
            assert wait_in_words(seconds) == words


def test_a_429_says_the_real_wait_in_the_learners_language(clock_held, client, db, settings):
    """The lab's hourly limit once said "wait a minute": Retry-After and the words now follow the
    counter's window, here an hour long."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "guide_search": "1/h"}
    assert client.get("/hi/search/?q=loss").status_code == 200
    refused = client.get("/hi/search/?q=loss")
    assert refused.status_code == 429
    wait = int(refused["Retry-After"])
    assert 1 <= wait <= 3600
    from django.utils import translation

    from config.waits import wait_in_words

    with translation.override("hi"):
        assert f"कृपया {wait_in_words(wait)} रुककर फिर से कोशिश करें।" in refused.content.decode()
