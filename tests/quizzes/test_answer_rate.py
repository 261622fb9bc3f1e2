"""Every answer is counted (config.ratelimit) before anything is read or written: over the rate
nothing is written, the Redis connection always goes back to its pool, and a cache that cannot be
reached lets answers through with a warning, as every other limit does."""

import logging

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.test import Client
from django.utils import translation

from config.waits import please_wait
from quizzes import selectors
from quizzes.models import Answer

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def one_redis_connection(settings):
    """The cache with a pool of one connection: a connection the count kept would make the next
    cache call fail with redis's "Too many connections"."""
    default = django_settings.CACHES["default"]
    options = {**default.get("OPTIONS", {}), "CONNECTION_POOL_KWARGS": {"max_connections": 1}}  # django-redis's
    settings.CACHES = {"default": {**default, "OPTIONS": options}}


def test_an_htmx_answer_over_the_rate_is_a_429_and_writes_nothing(
    clock_held, client, quizzes, start_attempt, helpers, settings
):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "2/m"}
    attempt = start_attempt(client)
    codes = [
        client.post(helpers.answer_url(attempt, n), helpers.correct_post(attempt, n), **HTMX).status_code
        for n in (1, 2, 3)
    ]
    assert codes == [200, 200, 429]
    assert sorted(Answer.objects.filter(attempt=attempt).values_list("question_id", flat=True)) == sorted(
        attempt.question_ids[:2]
    )


@pytest.mark.parametrize(("language", "said"), [("en", "Please wait"), ("hi", "कृपया"), ("fr", "Patientez")])
def test_an_htmx_answer_over_the_rate_says_the_wait_in_words_inside_its_card(
    clock_held, client, quizzes, start_attempt, helpers, settings, language, said
):
    """htmx drops a 4xx it is not told to swap: the 429 names the card's own message slot (HX-Retarget)
    and how to put the wait there, so the learner reads it beside the answer they chose."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "1/m"}
    attempt = start_attempt(client)
    with translation.override(language):
        first = client.post(helpers.answer_url(attempt, 1), helpers.correct_post(attempt, 1), **HTMX)
        refused = client.post(helpers.answer_url(attempt, 2), helpers.correct_post(attempt, 2), **HTMX)
        page = client.get(selectors.attempt_url(attempt)).text
    assert (first.status_code, refused.status_code) == (200, 429)
    assert 1 <= int(refused["Retry-After"]) <= 60
    assert (refused["HX-Retarget"], refused["HX-Reswap"]) == ("#q2-wait", "innerHTML")
    with translation.override(language):  # "40 seconds", "1 minute": how long the counter's window has left
        wait = please_wait(int(refused["Retry-After"]))
    assert 'role="alert"' in refused.text and wait in refused.text and said in wait
    assert "<html" not in refused.text  # the message alone, not the error page
    card = page.split('id="q2"', 1)[1].split("</section>", 1)[0]
    assert 'id="q2-wait"' in card.split("Check answer", 1)[0]  # the slot, inside the card's form


def test_a_plain_answer_over_the_rate_still_gets_the_429_page(
    clock_held, client, quizzes, start_attempt, helpers, settings
):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "1/m"}
    attempt = start_attempt(client)
    assert client.post(helpers.answer_url(attempt, 1), helpers.correct_post(attempt, 1)).status_code == 302
    refused = client.post(helpers.answer_url(attempt, 2), helpers.correct_post(attempt, 2))
    assert refused.status_code == 429 and "Too many requests" in refused.text and "HX-Retarget" not in refused
    assert not Answer.objects.filter(attempt=attempt, question_id=attempt.question_ids[1]).exists()


@pytest.mark.integration  # the count's connection to the real Redis
def test_the_counting_connection_goes_back_to_the_pool_whatever_the_answer(
    clock_held, client, quizzes, start_attempt, helpers, settings, one_redis_connection
):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "4/m"}
    attempt = start_attempt(client)
    url = helpers.answer_url(attempt, 1)
    codes = [
        Client().post(url, helpers.correct_post(attempt, 1), **HTMX).status_code,  # not this browser's attempt
        client.post(url, {}, **HTMX).status_code,  # nothing chosen
        client.post(url, helpers.correct_post(attempt, 1), **HTMX).status_code,
        client.post(url, helpers.correct_post(attempt, 1), **HTMX).status_code,  # answered already
        client.post(helpers.answer_url(attempt, 2), helpers.correct_post(attempt, 2), **HTMX).status_code,
    ]
    assert codes == [404, 400, 200, 409, 429]
    cache = caches["default"]
    cache.set("after-the-answers", "free")  # raises if a count kept the only connection
    assert cache.get("after-the-answers") == "free"


def test_when_the_cache_is_down_answers_are_graded_and_the_skipped_count_is_logged(
    client, quizzes, start_attempt, helpers, settings, caplog
):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "1/m"}
    attempt = start_attempt(client)
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there, as when Redis has stopped
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1},
        }
    }
    with caplog.at_level(logging.WARNING, logger="config.ratelimit"):
        codes = [
            client.post(helpers.answer_url(attempt, n), helpers.correct_post(attempt, n), **HTMX).status_code
            for n in (1, 2)
        ]
    assert codes == [200, 200]  # graded, not a 500, not a 429
    assert Answer.objects.filter(attempt=attempt, is_correct=True).count() == 2
    assert "rate limit 'quiz_answer' not checked, the cache is unreachable" in caplog.text
