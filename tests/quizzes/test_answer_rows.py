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


@pytest.mark.parametrize("response", ["o2", ["o1", "o3"], 0.125])
def test_an_answer_inserted_by_its_plain_statement_reads_back_as_the_orm_stores_it(
    client, quizzes, start_attempt, response
):
    from django.db import IntegrityError

    from quizzes.models import Answer

    attempt = start_attempt(client)
    question = attempt.quiz.questions.get(pk=attempt.question_ids[0])

    inserted = rows.insert_answer(attempt=attempt, question=question, response=response, is_correct=True)

    stored = Answer.objects.get(attempt=attempt, question=question)
    assert inserted.pk == stored.pk and not inserted._state.adding and inserted._state.db == "default"
    assert _fields(inserted) == _fields(stored)
    assert stored.response == response and stored.is_correct is True
    assert stored.answered_at.tzinfo is not None and stored.answered_at == inserted.answered_at
    with pytest.raises(IntegrityError):  # a question is answered once (quizzes_answer_once)
        rows.insert_answer(attempt=attempt, question=question, response=response, is_correct=False)
    assert Answer.objects.filter(attempt=attempt).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_refused_insert_leaves_the_connection_usable_under_autocommit_and_in_a_transaction(
    client, quizzes, start_attempt
):
    from django.db import IntegrityError, connection, transaction

    from quizzes.models import Answer

    attempt = start_attempt(client)
    first, second = (attempt.quiz.questions.get(pk=pk) for pk in attempt.question_ids[:2])
    assert connection.get_autocommit() and not connection.in_atomic_block  # the web process's state

    rows.insert_answer(attempt=attempt, question=first, response="o1", is_correct=True)
    with pytest.raises(IntegrityError):
        rows.insert_answer(attempt=attempt, question=first, response="o2", is_correct=False)
    with transaction.atomic():
        with pytest.raises(IntegrityError):
            rows.insert_answer(attempt=attempt, question=first, response="o2", is_correct=False)
        rows.insert_answer(attempt=attempt, question=second, response="o1", is_correct=True)  # still usable

    assert sorted(Answer.objects.filter(attempt=attempt).values_list("question_id", "response")) == sorted(
        [(first.pk, "o1"), (second.pk, "o1")]
    )
