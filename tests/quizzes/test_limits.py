import html
import re
from datetime import timedelta

import pytest
from django.urls import reverse

from quizzes.models import Attempt


def start(client, slug="final-exam"):
    return client.post(reverse("quizzes:start", args=[slug]))


def test_after_an_exam_attempt_the_cool_down_applies(learner_client, quizzes, take_quiz, settings):
    client = learner_client
    settings.QUIZ_EXAM_COOLDOWN_MINUTES = 30
    attempt = take_quiz(client, "final-exam", correct=0)
    refused = start(client)
    assert refused.status_code == 429
    assert "You can start a new attempt in" in refused.text
    assert 29 * 60 < int(refused["Retry-After"]) <= 30 * 60  # until the cool-down ends
    assert Attempt.objects.count() == 1
    Attempt.objects.filter(pk=attempt.pk).update(finished_at=attempt.finished_at - timedelta(minutes=31))
    assert start(client).status_code == 302
    assert Attempt.objects.count() == 2


def test_the_quiz_page_says_when_the_exam_can_be_taken_again(learner_client, quizzes, take_quiz):
    client = learner_client
    take_quiz(client, "final-exam", correct=0)
    page = client.get(reverse("quizzes:quiz", args=["final-exam"]))
    assert "You can start a new attempt in" in page.text
    assert reverse("quizzes:start", args=["final-exam"]) not in page.text


@pytest.mark.parametrize(
    ("language", "sentence"),
    [
        ("hi", r"आप (\d+)\sमिनट बाद नया प्रयास शुरू कर सकते हैं।"),
        ("fr", r"Vous pourrez commencer une nouvelle tentative dans (\d+)\sminutes\."),
        ("en", r"You can start a new attempt in (\d+)\sminutes\."),
    ],
)
def test_the_wait_before_the_next_attempt_is_said_in_the_pages_language(
    learner_client, quizzes, take_quiz, settings, language, sentence
):
    """Django's timeuntil has no Hindi words ("22 minutes" showed on Hindi pages): the wait is the
    site's own words (config/waits.py), rounded up, as every 429 says it."""
    settings.QUIZ_EXAM_COOLDOWN_MINUTES = 30
    take_quiz(learner_client, "final-exam", correct=0)
    page = learner_client.get(f"/{language}/quizzes/final-exam/")
    found = re.search(sentence, html.unescape(page.text))
    assert found, page.text
    assert 29 <= int(found[1]) <= 30  # rounded up from just under 30 minutes; 29 if a minute went by


def test_the_daily_limit_counts_exam_attempts_in_the_last_24_hours(learner_client, quizzes, take_quiz, settings):
    client = learner_client
    settings.QUIZ_EXAM_COOLDOWN_MINUTES = 0
    settings.QUIZ_EXAM_DAILY_LIMIT = 2
    first = take_quiz(client, "final-exam", correct=0)
    take_quiz(client, "final-exam", correct=0)
    assert start(client).status_code == 429
    Attempt.objects.filter(pk=first.pk).update(started_at=first.started_at - timedelta(hours=24, minutes=1))
    assert start(client).status_code == 302


def test_guide_quizzes_have_no_cool_down(client, quizzes, take_quiz):
    take_quiz(client, "demo-guide")
    take_quiz(client, "demo-guide")
    assert start(client, "demo-guide").status_code == 302


def test_limits_follow_the_learner_across_browsers(client, learner, quizzes, take_quiz, settings):
    settings.QUIZ_EXAM_COOLDOWN_MINUTES, settings.QUIZ_EXAM_DAILY_LIMIT = 0, 1
    client.force_login(learner)
    take_quiz(client, "final-exam", correct=0)
    other_browser = client.__class__()
    other_browser.force_login(learner)
    refused = start(other_browser)
    assert refused.status_code == 429 and Attempt.objects.count() == 1


def test_a_visitor_who_is_not_signed_in_cannot_start_the_exam(client, quizzes):
    page = client.get(reverse("quizzes:quiz", args=["final-exam"]))
    assert "Sign in to take the final exam" in page.text
    assert reverse("quizzes:start", args=["final-exam"]) not in page.text
    refused = start(client)
    assert refused.status_code == 403 and "Sign in to take the final exam" in refused.text
    assert not Attempt.objects.exists()


def test_a_fresh_browser_cannot_walk_around_the_limits_by_logging_in(client, learner, quizzes, take_quiz, settings):
    settings.QUIZ_EXAM_COOLDOWN_MINUTES = 30
    client.force_login(learner)
    take_quiz(client, "final-exam", correct=0)
    fresh = client.__class__()  # a new browser: no session, no attempts of its own
    assert start(fresh).status_code == 403
    fresh.post(reverse("accounts:login"), {"username": "asha", "password": "a-long-Passphrase-42"})
    assert start(fresh).status_code == 429
    assert Attempt.objects.count() == 1


def test_answer_submissions_are_rate_limited(clock_held, client, quizzes, start_attempt, helpers, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "3/m"}
    attempt = start_attempt(client)
    codes = [
        client.post(helpers.answer_url(attempt, n), helpers.correct_post(attempt, n)).status_code for n in (1, 2, 3, 4)
    ]
    assert codes == [302, 302, 302, 429]
    assert attempt.answers.count() == 3


def test_starting_attempts_is_rate_limited_per_address(clock_held, client, quizzes, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_start": "2/h"}
    codes = [client.__class__().post(reverse("quizzes:start", args=["demo-guide"])).status_code for _ in range(3)]
    assert codes == [302, 302, 429]


def test_signed_in_learners_behind_one_address_start_quizzes_on_their_own_counters(clock_held, quizzes, settings):
    """A classroom shares one address: each learner's starts are theirs, so one keen learner does not
    stop the others; a visitor who is not signed in is still counted per address."""
    from django.test import Client

    from tests import factories

    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_start": "2/h"}
    asha, bilal = Client(), Client()  # both from 127.0.0.1
    asha.force_login(factories.account())
    bilal.force_login(factories.other_account())
    assert [start(asha, "demo-guide").status_code for _ in range(3)] == [302, 302, 429]
    assert [start(bilal, "demo-guide").status_code for _ in range(2)] == [302, 302]
    assert [start(Client(), "demo-guide").status_code for _ in range(3)] == [302, 302, 429]
    # A learner's second start resumes their unfinished attempt; each visitor without a session has their own.
    assert Attempt.objects.filter(user__isnull=False).count() == 2 and Attempt.objects.count() == 4
