"""Arbitrary answer posts for every question type, through the answer view: each one gets a
2xx/3xx (graded) or a 4xx with a message, never a 500, and a refused post changes nothing."""

import re
import time
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from quizzes.grading import InvalidAnswer, parse_number
from quizzes.models import Answer, Attempt, Question, Quiz

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

TYPES = ("single", "multiple", "numeric", "ordering")
OPTION_IDS = ("zero", "forward", "backward", "step")
DIGITS = "0123456789०१२३४५६७८९٠١٢٣٤٥٦٧٨٩０１２３４５６７８９"  # ASCII, Devanagari, Arabic, full width
ERROR_RE = re.compile(r'class="message message-error" role="alert">\s*([^<\s][^<]*)</p>')
NOT_FOUND = "We could not find that page"

numbers = st.one_of(
    st.text(alphabet=DIGITS + ".,/eE+-−  \t", max_size=45),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**60), max_value=10**60).map(str),
    st.sampled_from(["1e9999999/3", "1/1e-999", "NaN", "-inf", "0/0", "1/0", "0,125", "1/8", "١٢٨", "0x40", "1_000"]),
)
positions = st.one_of(st.integers(-2, 8).map(str), st.sampled_from(["01", "1.0", " 1", "1\n", "٣", "१", "+1", ""]))
values = st.one_of(
    numbers,
    positions,
    st.sampled_from((*OPTION_IDS, "a", "b", "pick-one")),  # option ids are never what the browser sends
    st.text(max_size=30),
    st.sampled_from(["9" * 5000, "١" * 3000, "x" * 100_000]),
)
names = st.one_of(
    st.sampled_from(["value", "choice", "rank-0", "rank-1", "rank-2", "rank-3", "rank-4", "rank-5"]),
    st.text(max_size=12),
)
posts = st.lists(st.tuples(names, values), max_size=8)  # missing and duplicated fields included


def _text(en: str) -> dict[str, str]:
    return {"en": en, "hi": en, "fr": en}


@pytest.fixture
def quiz(db, settings) -> Quiz:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "100000/m", "quiz_start": "100000/h"}
    quiz = Quiz.objects.create(slug="fuzz-quiz", title=_text("Fuzz quiz"))
    options = [{"id": oid, "text": _text(oid), "correct": oid in ("forward", "step")} for oid in OPTION_IDS]
    single = [{**option, "correct": option["id"] == "forward"} for option in options]
    common = {"quiz": quiz, "prompt": _text("?"), "hint": _text("hint"), "explanation": _text("because")}
    Question.objects.create(key="single", type="single", position=0, options=single, **common)
    Question.objects.create(key="multiple", type="multiple", position=1, options=options, **common)
    Question.objects.create(key="numeric", type="numeric", position=2, answer=0.125, tolerance=0.001, **common)
    Question.objects.create(key="ordering", type="ordering", position=3, options=options, **common)
    return quiz


def _start(client: Client, quiz: Quiz) -> Attempt:
    response = client.post(reverse("quizzes:start", args=[quiz.slug]))
    assert response.status_code == 302
    return Attempt.objects.get(key=response["Location"].rstrip("/").split("/")[-1])


def _number_of(attempt: Attempt, question_type: str) -> int:
    """Questions are shuffled per attempt: the 1-based number of the one of this type."""
    types = dict(Question.objects.filter(pk__in=attempt.question_ids).values_list("pk", "type"))
    return next(n for n, pk in enumerate(attempt.question_ids, start=1) if types[pk] == question_type)


def _state(attempt: Attempt) -> tuple:
    attempt.refresh_from_db()
    answers = list(attempt.answers.values_list("question_id", "response", "is_correct"))
    return attempt.finished_at, attempt.correct_count, attempt.passed, attempt.layout, attempt.question_ids, answers


@pytest.fixture
def attempts(quiz):
    """The learner's attempt, and another browser's attempt the learner must not reach."""
    learner, stranger = Client(), Client()
    return learner, _start(learner, quiz), _start(stranger, quiz)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    target=st.one_of(st.sampled_from(TYPES), st.sampled_from([0, 5, 10**12])),  # a question, or no question
    fields=posts,
    raw=st.one_of(st.none(), st.binary(max_size=200)),
    htmx=st.booleans(),
    strangers=st.booleans(),
)
@example(target="numeric", fields=[("value", "१/८")], raw=None, htmx=True, strangers=False)  # graded: 200
@example(target="numeric", fields=[("value", "0,125")], raw=None, htmx=False, strangers=False)  # graded: 302
@example(target="numeric", fields=[("value", "1e9999999/3")], raw=None, htmx=True, strangers=False)
@example(target="single", fields=[("choice", "1"), ("choice", "2")], raw=None, htmx=False, strangers=False)
@example(target="multiple", fields=[("choice", "forward")], raw=None, htmx=True, strangers=False)
@example(target="ordering", fields=[("rank-1", "1"), ("rank-2", "1")], raw=None, htmx=True, strangers=False)
@example(target="single", fields=[("choice", "1")], raw=None, htmx=False, strangers=True)
def test_every_answer_post_is_graded_or_refused_with_words(attempts, target, fields, raw, htmx, strangers):
    client, own, other = attempts
    attempt = other if strangers else own
    number = _number_of(attempt, target) if isinstance(target, str) else target
    before, others_before = _state(attempt), _state(other if attempt is own else own)
    url = reverse("quizzes:answer", args=[attempt.quiz.slug, attempt.key, number])
    body = raw if raw is not None else urlencode(fields).encode()
    headers = {"HX-Request": "true"} if htmx else {}
    started = time.monotonic()
    response = client.post(url, body, content_type="application/x-www-form-urlencoded", headers=headers)
    assert time.monotonic() - started < 2, "parsing an answer must stay cheap"
    assert response.status_code < 500
    assert _state(other if attempt is own else own) == others_before
    if response.status_code >= 400:
        assert _state(attempt) == before, "a refused answer changed the attempt"
        if response.status_code == 404:
            assert NOT_FOUND in response.text
        else:
            assert response.status_code == 400 and ERROR_RE.search(response.text), response.text[-800:]
        return
    assert response.status_code in (200, 302)
    assert not strangers and 1 <= number <= attempt.total
    answers = list(attempt.answers.all())
    assert len(answers) == 1 and answers[0].question_id == attempt.question_ids[number - 1]
    Answer.objects.filter(attempt=attempt).delete()  # reopen the question for the next example


@given(raw=numbers)
@settings(max_examples=300, deadline=None)
def test_parse_number_returns_a_finite_number_or_refuses_at_once(raw):
    started = time.monotonic()
    try:
        value = parse_number(raw)
    except InvalidAnswer as exc:
        assert str(exc)
    else:
        assert value == value and abs(value) != float("inf")
    assert time.monotonic() - started < 0.5


def test_it_refuses_a_fraction_with_a_huge_exponent_at_once():
    """Fraction("1e9999999") builds a ten-million-digit integer: seconds of CPU per post."""
    started = time.monotonic()
    for raw in ("1e9999999/3", "3/1e-9999999", "1e99999999"):
        with pytest.raises(InvalidAnswer):
            parse_number(raw)
    assert time.monotonic() - started < 0.1
