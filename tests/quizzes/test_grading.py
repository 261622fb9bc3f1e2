import pytest
from django.http import QueryDict

from quizzes.grading import InvalidAnswer, is_correct, parse_number, parse_response
from quizzes.models import Question

OPTIONS = [{"id": i, "text": {"en": i}, "correct": i in ("b", "c")} for i in ("a", "b", "c", "d")]


def q(qtype: str, **fields) -> Question:
    if qtype == "single":
        fields.setdefault("options", [{**o, "correct": o["id"] == "b"} for o in OPTIONS])
    elif qtype in ("multiple", "ordering"):
        fields.setdefault("options", OPTIONS)
    return Question(type=qtype, **fields)


def post(query: str) -> QueryDict:
    return QueryDict(query)


SHOWN = ["d", "b", "a", "c"]  # the order this attempt shows the options in


def test_single_choice_is_right_only_for_the_key():
    question = q("single")
    assert parse_response(question, SHOWN, post("choice=2")) == "b"
    assert is_correct(question, "b")
    assert not is_correct(question, "a")


def test_multiple_select_needs_exactly_the_right_set():
    question = q("multiple")
    assert parse_response(question, SHOWN, post("choice=4&choice=2")) == ["b", "c"]
    assert is_correct(question, ["b", "c"])
    assert not is_correct(question, ["b"])
    assert not is_correct(question, ["a", "b", "c"])


def test_numeric_answers_count_within_the_tolerance():
    question = q("numeric", answer=0.125, tolerance=0.001)
    assert is_correct(question, 0.1255)
    assert not is_correct(question, 0.127)
    exact = q("numeric", answer=64, tolerance=0)
    assert is_correct(exact, 64.0)
    assert not is_correct(exact, 63)


def test_ordering_is_right_only_in_the_authored_order():
    question = q("ordering")
    # Positions are of the shown order: d is shown 1st and placed 4th, etc.
    response = parse_response(question, SHOWN, post("rank-1=4&rank-2=2&rank-3=1&rank-4=3"))
    assert response == ["a", "b", "c", "d"]
    assert is_correct(question, response)
    assert not is_correct(question, ["b", "a", "c", "d"])


@pytest.mark.parametrize(
    "raw, value",
    [("64", 64.0), (" 0.125 ", 0.125), ("0,125", 0.125), ("1/8", 0.125), ("-2", -2.0), ("१६", 16.0), ("1e3", 1000.0)],
)
def test_it_reads_numbers_the_way_learners_type_them(raw, value):
    assert parse_number(raw) == pytest.approx(value)


@pytest.mark.parametrize("raw", ["", "abc", "1,000,000", "nan", "inf", "1/0", "0x10", "1" * 41, "²", "--1", "1/"])
def test_it_rejects_malformed_numbers(raw):
    with pytest.raises(InvalidAnswer, match="Enter a number"):
        parse_number(raw)


@pytest.mark.parametrize(
    "qtype, query, message",
    [
        ("single", "", "Choose an answer"),
        ("single", "choice=1&choice=2", "only one"),
        ("single", "choice=5", "not part of this question"),
        ("single", "choice=0", "not part of this question"),
        ("single", "choice=b", "not part of this question"),
        ("multiple", "", "at least one"),
        ("multiple", "choice=1&choice=9", "not part of this question"),
        ("ordering", "rank-1=1&rank-2=1&rank-3=2&rank-4=3", "different position"),
        ("ordering", "rank-1=1&rank-2=2&rank-3=3", "every step"),
        ("ordering", "rank-1=1&rank-2=2&rank-3=3&rank-4=7", "not part of this question"),
    ],
)
def test_it_rejects_tampered_or_incomplete_posts(qtype, query, message):
    with pytest.raises(InvalidAnswer, match=message):
        parse_response(q(qtype), SHOWN, post(query))
