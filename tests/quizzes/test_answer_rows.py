"""The answer's plain attempt read (quizzes/rows.py) gives exactly what the ORM does.
Marked integration so that they run on PostgreSQL too (bin/test), where values convert differently."""

import pytest

from quizzes import rows
from quizzes.models import Attempt

pytestmark = pytest.mark.integration

HTMX = {"HTTP_HX_REQUEST": "true"}


def _fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


def test_an_attempt_read_by_its_key_equals_the_orms_with_its_quiz(client, quizzes, start_attempt, helpers):
    attempt = start_attempt(client)
    client.post(helpers.answer_url(attempt, 1), helpers.correct_post(attempt, 1), **HTMX)
    client.post(f"{helpers.answer_url(attempt, 1).rsplit('/questions/', 1)[0]}/finish/")
    expected = Attempt.objects.select_related("quiz").get(key=attempt.key)
    assert expected.finished_at is not None and expected.question_ids

    read = rows.attempt_with_quiz(attempt.key)

    assert _fields(read) == _fields(expected)
    assert _fields(read.quiz) == _fields(expected.quiz) and read.quiz.updated_at.tzinfo is not None
    assert not read._state.adding and read._state.db == "default"
    assert rows.attempt_with_quiz("no-such-key") is None
