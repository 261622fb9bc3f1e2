"""An htmx answer is the quiz's hot path: graded and answered with a fixed, small set of queries."""

from django.db import connection
from django.test.utils import CaptureQueriesContext

from quizzes.models import Answer

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
