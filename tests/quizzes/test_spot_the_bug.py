"""Spot the bug: a short loop with numbered lines; the learner selects the faulty line(s)."""

import re

import pytest
from django.urls import reverse

from quizzes.models import Answer, Question

LANGS = ["en", "hi", "fr"]
HTMX = {"HTTP_HX_REQUEST": "true"}
LOOP = """\
for i, (x, y) in enumerate(loader):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y) / N
    loss.backward()
    if (i + 1) % N == 0:
        optimizer.step()
"""


def spot_bug_question(**changes) -> dict:
    data = {
        "id": "zero-grad-inside",
        "type": "spot_bug",
        "prompt": {"en": "Which line breaks accumulation?", "hi": "कौन-सी पंक्ति?", "fr": "Quelle ligne ?"},
        "code": LOOP,
        "bug_lines": [2],
        "checked_by": "zero_grad_inside",
        "hint": {lang: "Hint: where are the gradients cleared?" for lang in LANGS},
        "explanation": {
            lang: "Explanation: zero_grad() every micro-batch throws away N − 1 of them." for lang in LANGS
        },
    }
    data.update(changes)
    return data


@pytest.fixture
def bug_question(quizzes_with):
    quizzes_with(guide=[spot_bug_question()], exam=[spot_bug_question(id="exam-zero-grad")])
    return Question.objects.get(key="zero-grad-inside")


def _url(attempt, question) -> str:
    number = attempt.question_ids.index(question.pk) + 1
    return reverse("quizzes:answer", args=[attempt.quiz.slug, attempt.key, number])


def test_each_line_of_the_code_is_a_choice_in_its_order_with_its_indentation(bug_question):
    lines = [option["text"]["en"] for option in bug_question.options]
    assert lines == LOOP.splitlines()
    assert lines[1] == "    optimizer.zero_grad()"
    assert all(option["text"]["hi"] == option["text"]["en"] for option in bug_question.options)
    assert [option["correct"] for option in bug_question.options] == [False, True, False, False, False, False]


def test_the_form_shows_numbered_lines_in_order_with_nothing_that_tells_the_bug(client, bug_question, start_attempt):
    attempt = start_attempt(client)
    assert attempt.layout[str(bug_question.pk)] == [f"line-{n}" for n in range(1, 7)]
    page = client.get(reverse("quizzes:attempt", args=["demo-guide", attempt.key])).text
    section = page.split(f'id="q{attempt.question_ids.index(bug_question.pk) + 1}"', 1)[1].split("</section>", 1)[0]
    assert section.count('type="checkbox" name="choice"') == 6
    assert re.search(
        r'value="2"> <span class="line-number"><span class="visually-hidden">Line </span>2</span>', section
    )
    assert "<code>    optimizer.zero_grad()</code>" in section
    assert "tag-key" not in section and "line-2" not in section and "correct" not in section


def test_selecting_the_faulty_line_is_correct(client, bug_question, start_attempt):
    attempt = start_attempt(client)
    fragment = client.post(_url(attempt, bug_question), {"choice": ["2"]}, **HTMX)
    assert fragment.status_code == 200 and "Correct." in fragment.text
    assert Answer.objects.get(question=bug_question).response == ["line-2"]


@pytest.mark.parametrize("choice", [["3"], ["2", "6"]])
def test_a_wrong_or_extra_line_is_wrong_and_the_hint_shows(client, bug_question, start_attempt, choice):
    attempt = start_attempt(client)
    fragment = client.post(_url(attempt, bug_question), {"choice": choice}, **HTMX)
    assert fragment.status_code == 200 and "Not quite." in fragment.text
    assert "Hint: where are the gradients cleared?" in fragment.text
    assert not Answer.objects.get(question=bug_question).is_correct


@pytest.mark.parametrize(
    "data, message", [({}, "Select the line or lines with the bug."), ({"choice": "7"}, "not part")]
)
def test_no_line_or_a_line_that_is_not_there_is_refused_with_words(client, bug_question, start_attempt, data, message):
    attempt = start_attempt(client)
    fragment = client.post(_url(attempt, bug_question), data, **HTMX)
    assert fragment.status_code == 400 and message in fragment.text
    assert not Answer.objects.exists()


def test_the_guide_quiz_review_marks_the_bug(client, bug_question, take_quiz):
    attempt = take_quiz(client, correct=0)
    review = client.get(reverse("quizzes:result", args=["demo-guide", attempt.key])).text
    assert re.search(r"<code>    optimizer.zero_grad\(\)</code>\s*<span class=\"tag tag-key\">the bug</span>", review)


def test_the_exam_review_does_not_mark_the_bug(learner_client, bug_question, take_quiz, settings):
    settings.QUIZ_EXAM_QUESTIONS = 31  # the whole bank, so the spot-the-bug question is drawn
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "100/m"}
    exam = take_quiz(learner_client, "final-exam", correct=0)
    review = learner_client.get(reverse("quizzes:result", args=["final-exam", exam.key])).text
    assert "<code>    optimizer.zero_grad()</code>" in review and "tag-key" not in review


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"code": "x = 1\n\ny = 2\n"}, "cannot have blank lines"),
        ({"bug_lines": [7]}, "'bug_lines' must list"),
        ({"bug_lines": []}, "'bug_lines' must list"),
        ({"code": "only_one_line()\n"}, "between 2 and 30 lines"),
    ],
)
def test_a_broken_spot_the_bug_question_is_refused_with_the_reason(tmp_path, helpers, changes, message):
    helpers.assert_refused(tmp_path, spot_bug_question(**changes), message)
