"""Parameterised numeric questions: numbers drawn per attempt, the key computed on the server."""

import pytest
from django.urls import reverse
from django.utils import translation

from quizzes import formulas
from quizzes.models import Answer, Question
from quizzes.services import quizzes_sync

LANGS = ["en", "hi", "fr"]
HTMX = {"HTTP_HX_REQUEST": "true"}


def effective_batch_question(**changes) -> dict:
    data = {
        "id": "drawn-batch",
        "type": "numeric",
        "prompt": {
            "en": "Micro-batch {b}, N = {N}, {G} GPUs. Effective batch?",
            "hi": "माइक्रो-बैच {b}, N = {N}, {G} GPU. प्रभावी बैच?",
            "fr": "Micro-batch {b}, N = {N}, {G} GPU. Batch effectif ?",
        },
        "parameters": {"b": [4, 8, 16], "N": [2, 4, 8], "G": [1, 2, 4]},
        "formula": "b * N * G",
        "hint": {lang: "b × N × G" for lang in LANGS},
        "explanation": {lang: "Multiply the three." for lang in LANGS},
    }
    data.update(changes)
    return data


@pytest.fixture
def drawn_quiz(quizzes_with):
    """The demo guide quiz with one parameterised question added."""
    quizzes_with(guide=[effective_batch_question()])
    return Question.objects.get(key="drawn-batch")


def _number_of(attempt, question) -> int:
    return attempt.question_ids.index(question.pk) + 1


def test_formulas_are_plain_arithmetic_over_the_parameters():
    assert formulas.evaluate("b * N * G", {"b": 8, "N": 4, "G": 2}) == 64
    assert formulas.evaluate("(1 / 10) / (1 / 100)") == pytest.approx(10)
    assert formulas.evaluate("(1000 / 8 + 4 - 1) // 4") == 32  # a ceiling: 125 micro-batches make 32 windows
    assert formulas.evaluate("(1000 / 8 + 4 - 1) // 4", {}) == formulas.evaluate("(1024 / 8 + 4 - 1) // 4") == 32
    for bad in ["__import__('os')", "b.real", "[1][0]", "f(2)", "2 ** 100", "1 / 0", "unknown + 1"]:
        with pytest.raises(formulas.FormulaError):
            formulas.evaluate(bad, {"b": 1})


def test_the_numbers_are_drawn_per_attempt_and_stored_with_it(client, drawn_quiz, start_attempt):
    attempts = [client.__class__() for _ in range(12)]
    drawn = []
    for browser in attempts:
        attempt = start_attempt(browser)
        values = attempt.drawn_for(drawn_quiz)
        assert values.keys() == {"b", "N", "G"} and values["b"] in (4, 8, 16)
        drawn.append(tuple(values.values()))
    assert len(set(drawn)) > 1  # 27 possible draws: twelve attempts that all drew the same would be broken


def test_the_prompt_shows_the_drawn_numbers_and_the_key_follows_from_them(client, drawn_quiz, start_attempt):
    attempt = start_attempt(client)
    values = attempt.drawn_for(drawn_quiz)
    number = _number_of(attempt, drawn_quiz)
    page = client.get(reverse("quizzes:attempt", args=["demo-guide", attempt.key])).text
    assert f"Micro-batch {values['b']:g}, N = {values['N']:g}, {values['G']:g} GPUs" in page
    assert "{b}" not in page
    key = values["b"] * values["N"] * values["G"]
    url = reverse("quizzes:answer", args=["demo-guide", attempt.key, number])
    fragment = client.post(url, {"value": f"{key:g}"}, **HTMX)
    assert fragment.status_code == 200
    assert Answer.objects.get(attempt=attempt, question=drawn_quiz).is_correct


def test_a_number_right_for_another_draw_is_wrong_for_this_one(client, drawn_quiz, start_attempt):
    attempt = start_attempt(client)
    values = attempt.drawn_for(drawn_quiz)
    key = values["b"] * values["N"] * values["G"]
    other = next(v for v in (16 * 8 * 4, 4 * 2 * 1) if v != key)
    client.post(
        reverse("quizzes:answer", args=["demo-guide", attempt.key, _number_of(attempt, drawn_quiz)]), {"value": other}
    )
    assert not Answer.objects.get(attempt=attempt, question=drawn_quiz).is_correct


def test_the_review_of_a_guide_quiz_gives_the_key_for_the_numbers_drawn(client, drawn_quiz, take_quiz):
    attempt = take_quiz(client, correct=0)
    values = attempt.drawn_for(drawn_quiz)
    review = client.get(reverse("quizzes:result", args=["demo-guide", attempt.key])).text
    assert f"<strong>{values['b'] * values['N'] * values['G']:g}</strong>" in review


def test_french_pages_write_drawn_decimals_the_french_way(db, tmp_path, helpers, settings, client, start_attempt):
    quiz = helpers.guide_quiz()
    quiz["questions"].append(
        effective_batch_question(
            id="drawn-ratio",
            prompt={lang: "Scale {s}, micro-batches {N}." for lang in LANGS},
            parameters={"s": [0.25], "N": [4]},
            formula="s * N",
        )
    )
    helpers.write_quiz(tmp_path / "fr", "demo-guide", quiz)
    quizzes_sync(content_dir=tmp_path / "fr")
    with translation.override("fr"):
        attempt = start_attempt(client)
        page = client.get(f"/fr/quizzes/demo-guide/attempts/{attempt.key}/").text
    assert "Scale 0,25, micro-batches 4." in page


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"answer": 64}, "has no fixed 'answer'"),
        ({"formula": "b * N * K"}, "not parameters: ['K']"),
        ({"formula": "b / (N - 2)"}, "has no value"),
        ({"parameters": {"b": [], "N": [2], "G": [1]}}, "needs a list of numbers"),
        ({"prompt": {"en": "b={b}, N={N}", "hi": "{b} {N} {G}", "fr": "{b} {N} {G}"}}, "en prompt must show"),
        ({"formula": "b.real * N * G"}, "not allowed in a formula"),
    ],
)
def test_a_broken_parameterised_question_is_refused_with_the_reason(tmp_path, helpers, changes, message):
    helpers.assert_refused(tmp_path, effective_batch_question(**changes), message)
