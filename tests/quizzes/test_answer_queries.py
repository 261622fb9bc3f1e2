"""An htmx answer is the quiz's hot path: graded and answered with a fixed, small set of queries."""

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from quizzes.models import Answer, Question
from quizzes.services import quizzes_sync
from tests.factories import guide_quiz, write_quiz

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_an_htmx_answer_reads_the_session_attempt_and_question_once_and_writes_one_row(
    client, quizzes, start_attempt, helpers
):
    attempt = start_attempt(client)
    url, data = helpers.answer_url(attempt, 1), helpers.correct_post(attempt, 1)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, data, **HTMX)
    assert response.status_code == 200 and "1 of 5 answered" in response.text
    tables = [q["sql"].split(" FROM ")[1].split()[0].strip('"') for q in queries if q["sql"].startswith("SELECT")]
    # No "already answered?" query first: the unique constraint refuses a second answer.
    assert tables == ["django_session", "quizzes_attempt", "quizzes_question", "quizzes_answer"]
    assert sum(q["sql"].startswith("INSERT") for q in queries) == 1
    assert Answer.objects.filter(attempt=attempt).count() == 1


def test_answering_twice_is_refused_by_the_constraint_with_the_card_and_a_409(client, quizzes, start_attempt, helpers):
    attempt = start_attempt(client)
    url, data = helpers.answer_url(attempt, 1), helpers.correct_post(attempt, 1)
    client.post(url, data, **HTMX)
    again = client.post(url, data, **HTMX)
    assert again.status_code == 409 and "already answered" in again.text
    assert 'id="quiz-progress"' in again.text and Answer.objects.filter(attempt=attempt).count() == 1


def _number_of(attempt, key: str) -> int:
    return attempt.question_ids.index(Question.objects.get(quiz=attempt.quiz, key=key).pk) + 1


def _answer(client, attempt, helpers, key: str = "pick-one"):
    number = _number_of(attempt, key)
    url, data = helpers.answer_url(attempt, number), helpers.wrong_post(attempt, number)
    with CaptureQueriesContext(connection) as queries:
        response = client.post(url, data, **HTMX)
    assert response.status_code == 200
    return response, [q["sql"] for q in queries if '"quizzes_question"' in q["sql"].split(" WHERE ")[0]]


def test_each_learner_gets_their_own_grading_and_a_content_sync_shows_at_once(
    client, quizzes, quiz_content, start_attempt, helpers
):
    first = start_attempt(client)
    other = Client()
    second = start_attempt(other)
    _answer(client, first, helpers)
    response, _reads = _answer(other, second, helpers)
    assert "Not quite." in response.text and "Explanation of pick-one" in response.text
    assert [a.attempt_id for a in Answer.objects.all()] == [first.pk, second.pk]

    changed = guide_quiz()
    changed["questions"][1]["explanation"]["en"] = "A new explanation after a content sync"
    write_quiz(quiz_content, "demo-guide", changed)
    quizzes_sync(content_dir=quiz_content)
    response, reads = _answer(other, second, helpers, "pick-many")
    assert len(reads) == 1 and "A new explanation after a content sync" in response.text
