from datetime import timedelta

from django.urls import reverse

from quizzes.models import Attempt


def start(client, slug="final-exam"):
    return client.post(reverse("quizzes:start", args=[slug]))


def test_after_an_exam_attempt_the_cool_down_applies(client, quizzes, take_quiz, settings):
    settings.QUIZ_EXAM_COOLDOWN_MINUTES = 30
    attempt = take_quiz(client, "final-exam", correct=0)
    refused = start(client)
    assert refused.status_code == 429
    assert "You can start a new attempt in" in refused.text
    assert Attempt.objects.count() == 1
    Attempt.objects.filter(pk=attempt.pk).update(finished_at=attempt.finished_at - timedelta(minutes=31))
    assert start(client).status_code == 302
    assert Attempt.objects.count() == 2


def test_the_quiz_page_says_when_the_exam_can_be_taken_again(client, quizzes, take_quiz):
    take_quiz(client, "final-exam", correct=0)
    page = client.get(reverse("quizzes:quiz", args=["final-exam"]))
    assert "You can start a new attempt in" in page.text
    assert reverse("quizzes:start", args=["final-exam"]) not in page.text


def test_the_daily_limit_counts_exam_attempts_in_the_last_24_hours(client, quizzes, take_quiz, settings):
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


def test_limits_follow_the_learner_across_browsers(client, learner, quizzes, take_quiz):
    client.force_login(learner)
    take_quiz(client, "final-exam", correct=0)
    other_browser = client.__class__()
    other_browser.force_login(learner)
    assert start(other_browser).status_code == 429


def test_answer_submissions_are_rate_limited(client, quizzes, start_attempt, helpers, settings):
    settings.QUIZ_ANSWER_RATE = "3/m"
    attempt = start_attempt(client)
    codes = [
        client.post(helpers.answer_url(attempt, n), helpers.correct_post(attempt, n)).status_code for n in (1, 2, 3, 4)
    ]
    assert codes == [302, 302, 302, 429]
    assert attempt.answers.count() == 3


def test_starting_attempts_is_rate_limited_per_address(client, quizzes, settings):
    settings.QUIZ_START_RATE = "2/h"
    codes = [client.__class__().post(reverse("quizzes:start", args=["demo-guide"])).status_code for _ in range(3)]
    assert codes == [302, 302, 429]
