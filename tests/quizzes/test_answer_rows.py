"""The answer's plain statements (quizzes/rows.py) read and write exactly what the ORM does.
Marked integration so that they run on PostgreSQL too (bin/test), where values convert differently."""

import pytest
from django.db import IntegrityError, transaction
from django.forms.models import model_to_dict

from quizzes import rows
from quizzes.models import Answer, Attempt

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


def test_an_inserted_answer_is_the_row_the_orm_reads_back_and_a_second_is_refused(client, quizzes, start_attempt):
    attempt = start_attempt(client)
    question_id = attempt.question_ids[0]
    answer = rows.insert_answer(Answer(attempt=attempt, question_id=question_id, response=["a", "c"], is_correct=False))

    stored = Answer.objects.get(attempt=attempt)
    assert answer.pk == stored.pk and not answer._state.adding
    assert model_to_dict(answer) == model_to_dict(stored) and answer.answered_at == stored.answered_at
    assert stored.response == ["a", "c"] and stored.is_correct is False
    with pytest.raises(IntegrityError), transaction.atomic():
        rows.insert_answer(Answer(attempt=attempt, question_id=question_id, response=1.5, is_correct=True))
    assert Answer.objects.filter(attempt=attempt).count() == 1
