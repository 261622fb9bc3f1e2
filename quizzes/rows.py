"""The answer's hot path in plain SQL: the attempt read with its quiz.

Every htmx answer reads its attempt. Profiled, the ORM built that statement for about ten times what the
database took to run it (bench/report.py's ANSWER_NOTE). The statement is written here once per
database connection alias; every value still goes through its conversions (the database backend's and
the field's, as the ORM applies them), so SQLite and PostgreSQL give exactly what the ORM would, and
the instances are the ORM's own (Model.from_db). The insert stays the ORM's: measured, a plain INSERT
saved about 0.02 ms, within the noise.
"""

from functools import cache

from django.db import connections, router
from django.db.models import Field, Model

from .models import Attempt, Quiz


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
