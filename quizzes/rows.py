"""The answer's hot path in plain SQL: the attempt read with its quiz, and the answer's insert.

Every htmx answer reads its attempt and stores one Answer. Profiled, the ORM built the SELECT for about
ten times what the database took to run it, and `Answer.objects.create` cost about 0.15 ms more than the
same INSERT sent through the same connection (0.31 against 0.17 ms with its transaction, measured with
timeit on a copy of the site, 2026-12-02; bench/report.py's ANSWER_NOTE). Each statement is written here
once per database connection alias; every value still goes through its conversions (the database
backend's and the field's, as the ORM applies them), so SQLite and PostgreSQL store and give exactly
what the ORM would, and the instances are the ORM's own.
"""

from contextlib import nullcontext
from functools import cache

from django.db import connections, router, transaction
from django.db.models import Field, Model

from .models import Answer, Attempt, Quiz


def _converters(connection, model: type[Model], field: Field) -> list:
    expression = field.get_col(model._meta.db_table)
    return [*connection.ops.get_db_converters(expression), *expression.get_db_converters(connection)]


def _convert(connection, row, columns) -> list:
    values = []
    for value, (expression, converters) in zip(row, columns, strict=True):
        for converter in converters:
            value = converter(value, expression, connection)
        values.append(value)
    return values


@cache
def _attempt_select(alias: str) -> tuple[str, list, list]:
    connection = connections[alias]
    qn = connection.ops.quote_name
    attempts, quizzes = qn(Attempt._meta.db_table), qn(Quiz._meta.db_table)
    attempt_fields, quiz_fields = Attempt._meta.concrete_fields, Quiz._meta.concrete_fields
    names = [f"{attempts}.{qn(f.column)}" for f in attempt_fields] + [f"{quizzes}.{qn(f.column)}" for f in quiz_fields]
    quiz_key = Attempt._meta.get_field("quiz")
    sql = (
        f"SELECT {', '.join(names)} FROM {attempts} INNER JOIN {quizzes} "
        f"ON ({attempts}.{qn(quiz_key.column)} = {quizzes}.{qn(Quiz._meta.pk.column)}) "
        f"WHERE {attempts}.{qn(Attempt._meta.get_field('key').column)} = %s"
    )
    columns = [(f.get_col(Attempt._meta.db_table), _converters(connection, Attempt, f)) for f in attempt_fields]
    columns += [(f.get_col(Quiz._meta.db_table), _converters(connection, Quiz, f)) for f in quiz_fields]
    return sql, columns[: len(attempt_fields)], columns[len(attempt_fields) :]


def attempt_with_quiz(key: str) -> Attempt | None:
    """The attempt whose (unique) key is `key`, its quiz already attached, or None."""
    alias = router.db_for_read(Attempt)
    sql, attempt_columns, quiz_columns = _attempt_select(alias)
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(sql, [key])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(attempt_columns)
    attempt = Attempt.from_db(alias, None, _convert(connection, row[:split], attempt_columns))
    quiz = Quiz.from_db(alias, None, _convert(connection, row[split:], quiz_columns))
    Attempt._meta.get_field("quiz").set_cached_value(attempt, quiz)
    return attempt


@cache
def _answer_insert(alias: str) -> tuple[str, list[Field], bool]:
    connection = connections[alias]
    qn = connection.ops.quote_name
    fields = [f for f in Answer._meta.local_concrete_fields if f is not Answer._meta.pk]
    returning = connection.features.can_return_columns_from_insert
    sql = (
        f"INSERT INTO {qn(Answer._meta.db_table)} ({', '.join(qn(f.column) for f in fields)}) "
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    if returning:
        sql += f" RETURNING {qn(Answer._meta.pk.column)}"
    return sql, fields, returning


def insert_answer(*, attempt: Attempt, question, response, is_correct: bool) -> Answer:
    """Stores a graded answer as `Answer.objects.create` would (each field's pre_save, then its value
    prepared for the database; no model signals: Answer has no receivers). Raises IntegrityError when
    the question was answered before (the constraint `quizzes_answer_once`)."""
    alias = router.db_for_write(Answer)
    sql, fields, returning = _answer_insert(alias)
    connection = connections[alias]
    answer = Answer(attempt=attempt, question=question, response=response, is_correct=is_correct)
    params = [field.get_db_prep_save(field.pre_save(answer, True), connection) for field in fields]
    # Under autocommit the one statement commits (or fails) alone, and a BEGIN/COMMIT around it cost
    # about 20 us more; inside a caller's transaction a savepoint keeps that transaction usable when
    # the insert is refused.
    in_transaction = connection.in_atomic_block or not connection.get_autocommit()
    with transaction.atomic(using=alias) if in_transaction else nullcontext():
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if returning:
                answer.pk = cursor.fetchone()[0]
            else:
                answer.pk = connection.ops.last_insert_id(cursor, Answer._meta.db_table, Answer._meta.pk.column)
    answer._state.adding, answer._state.db = False, alias
    return answer
