"""Bad input gets a clear 4xx, never a 500, and nothing in the attempt changes."""

import pytest
from django.test import Client
from django.urls import reverse

from quizzes.models import Answer, Attempt

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def attempt(client, quizzes, start_attempt):
    return start_attempt(client)


def snapshot(attempt: Attempt):
    attempt.refresh_from_db()
    answers = list(Answer.objects.filter(attempt=attempt).values_list("question_id", "response", "is_correct"))
    return attempt.finished_at, attempt.correct_count, attempt.layout, attempt.question_ids, answers


def test_an_unknown_question_number_is_not_found(client, attempt, helpers):
    before = snapshot(attempt)
    for number in (0, 6, 999):
        response = client.post(reverse("quizzes:answer", args=["demo-guide", attempt.key, number]), {"value": "1"})
        assert response.status_code == 404
    assert snapshot(attempt) == before


def test_an_unknown_option_is_refused_with_words(client, attempt, helpers):
    number = next(n for n in range(1, 6) if "choice" in helpers.correct_post(attempt, n))
    before = snapshot(attempt)
    for choice in ("5", "0", "-1", "a", "1e1", "٣"):
        response = client.post(helpers.answer_url(attempt, number), {"choice": choice}, **HTMX)
        assert response.status_code == 400
        assert "not part of this question" in response.text
    assert snapshot(attempt) == before


def test_malformed_numbers_are_refused_without_javascript_too(client, attempt, helpers):
    number = next(n for n in range(1, 6) if "value" in helpers.correct_post(attempt, n))
    before = snapshot(attempt)
    for value in ("", "sixty", "1/0", "NaN", "9" * 50):
        response = client.post(helpers.answer_url(attempt, number), {"value": value})
        assert response.status_code == 400
        assert "Enter a number" in response.text
        assert f'id="q{number}"' in response.text  # the whole page, the question still open
    assert snapshot(attempt) == before


def test_a_tampered_ordering_is_refused(client, attempt, helpers):
    number = next(n for n in range(1, 6) if "rank-1" in helpers.correct_post(attempt, n))
    before = snapshot(attempt)
    response = client.post(
        helpers.answer_url(attempt, number), {"rank-1": "1", "rank-2": "1", "rank-3": "2", "rank-4": "3"}, **HTMX
    )
    assert response.status_code == 400 and "different position" in response.text
    assert snapshot(attempt) == before


def test_a_replayed_post_changes_nothing(client, attempt, helpers):
    client.post(helpers.answer_url(attempt, 1), helpers.wrong_post(attempt, 1))
    before = snapshot(attempt)
    replay = client.post(helpers.answer_url(attempt, 1), helpers.correct_post(attempt, 1))
    assert replay.status_code == 409
    assert "already answered" in replay.text
    assert snapshot(attempt) == before


def test_answers_to_someone_elses_attempt_are_not_found(attempt, helpers, quizzes):
    stranger = Client()
    before = snapshot(attempt)
    response = stranger.post(helpers.answer_url(attempt, 1), helpers.correct_post(attempt, 1))
    assert response.status_code == 404
    assert stranger.get(reverse("quizzes:attempt", args=["demo-guide", attempt.key])).status_code == 404
    assert stranger.post(reverse("quizzes:finish", args=["demo-guide", attempt.key])).status_code == 404
    assert snapshot(attempt) == before


def test_an_attempt_under_another_quiz_is_not_found(client, attempt, helpers):
    url = reverse("quizzes:answer", args=["final-exam", attempt.key, 1])
    assert client.post(url, helpers.correct_post(attempt, 1)).status_code == 404


def test_answers_after_finishing_are_refused(client, attempt, helpers):
    client.post(reverse("quizzes:finish", args=["demo-guide", attempt.key]))
    before = snapshot(attempt)
    response = client.post(helpers.answer_url(attempt, 2), helpers.correct_post(attempt, 2), **HTMX)
    assert response.status_code == 409
    assert "attempt is finished" in response.text
    assert snapshot(attempt) == before


def test_finishing_twice_keeps_the_first_score(client, attempt, helpers):
    client.post(reverse("quizzes:finish", args=["demo-guide", attempt.key]))
    before = snapshot(attempt)
    client.post(reverse("quizzes:finish", args=["demo-guide", attempt.key]))
    assert snapshot(attempt) == before


def test_get_on_an_answer_url_is_not_allowed(client, attempt, helpers):
    assert client.get(helpers.answer_url(attempt, 1)).status_code == 405


def test_an_unknown_quiz_is_not_found(client, quizzes):
    assert client.get(reverse("quizzes:quiz", args=["no-such-quiz"])).status_code == 404
    assert client.post(reverse("quizzes:start", args=["no-such-quiz"])).status_code == 404
