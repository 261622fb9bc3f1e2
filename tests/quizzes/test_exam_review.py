"""The exam's review follows Moodle's review options: until the learner has passed, an exam question
shows whether it was right and where the guide teaches it, never its explanation or key, on the
result page and in the instant feedback of each answer. Guide quizzes keep their full feedback, and
a question whose numbers are drawn per attempt shows its worked solution (they differ next time)."""

import re
from html import unescape

import pytest
from django.urls import reverse

from quizzes.models import Attempt, Question
from quizzes.services import quizzes_sync

HTMX = {"HTTP_HX_REQUEST": "true"}
KEY_MARKERS = ("right answer", "tag-key", "Correct answer:", "Correct order:")  # tag-key: "the bug" too
# The key's markup only: the real bank's own texts may say "the right answer".
KEY_MARKUP = ('class="tag tag-key"', "<p>Correct answer: <strong>", "<p>Correct order: ")


def main_part(html: str) -> str:
    return html.split('<main id="main"', 1)[1].split("</main>", 1)[0]


def result_of(client, attempt: Attempt) -> str:
    response = client.get(reverse("quizzes:result", args=[attempt.quiz.slug, attempt.key]))
    assert response.status_code == 200
    return main_part(response.text)


def finish(client, attempt: Attempt) -> Attempt:
    client.post(reverse("quizzes:finish", args=[attempt.quiz.slug, attempt.key]))
    attempt.refresh_from_db()
    return attempt


def drawn_batch_question() -> dict:
    return {
        "id": "exam-drawn-batch",
        "type": "numeric",
        "prompt": {lang: "Micro-batch {b}, N = {N}: effective batch?" for lang in ("en", "hi", "fr")},
        "parameters": {"b": [4, 8], "N": [2, 4]},
        "formula": "b * N",
        "hint": {lang: "Hint for exam-drawn-batch" for lang in ("en", "hi", "fr")},
        "explanation": {lang: "Worked solution of exam-drawn-batch" for lang in ("en", "hi", "fr")},
    }


# The demo bank (tests/quizzes/conftest.py) ----------------------------------------------------


def test_a_failed_exam_shows_what_was_wrong_but_no_explanation_or_key(learner_client, quizzes, take_quiz):
    exam = take_quiz(learner_client, "final-exam", correct=0)
    assert exam.is_finished and not exam.passed
    review = result_of(learner_client, exam)
    assert review.count("Not quite.") == exam.total  # which questions were wrong
    assert "Explanation of exam-" not in review
    for marker in KEY_MARKERS:
        assert marker not in review, marker


def test_an_exam_finished_without_answers_gives_nothing_away(learner_client, quizzes, start_attempt):
    """The harvest of the issue: start, finish at once, read the review."""
    exam = finish(learner_client, start_attempt(learner_client, "final-exam"))
    review = result_of(learner_client, exam)
    assert review.count("Not answered.") == exam.total
    for leaked in ("Explanation of exam-", "Hint for exam-", *KEY_MARKERS):
        assert leaked not in review, leaked


def test_the_instant_feedback_of_an_exam_answer_has_no_explanation(learner_client, quizzes, start_attempt, helpers):
    exam = start_attempt(learner_client, "final-exam")
    wrong = learner_client.post(helpers.answer_url(exam, 1), helpers.wrong_post(exam, 1), **HTMX)
    right = learner_client.post(helpers.answer_url(exam, 2), helpers.correct_post(exam, 2), **HTMX)
    assert "Not quite." in wrong.text and "Correct." in right.text
    for fragment in (wrong.text, right.text):
        assert "Explanation of exam-" not in fragment
        for marker in KEY_MARKERS:
            assert marker not in fragment, marker
    # Without JavaScript the answer comes back on the attempt page: the same rule.
    learner_client.post(helpers.answer_url(exam, 3), helpers.wrong_post(exam, 3))
    page = learner_client.get(reverse("quizzes:attempt", args=["final-exam", exam.key])).text
    assert "Not quite." in page and "Explanation of exam-" not in page


def test_guide_quizzes_keep_their_explanations_and_keys(client, quizzes, take_quiz):
    attempt = take_quiz(client, "demo-guide", correct=0)
    review = result_of(client, attempt)
    assert review.count("Explanation of ") == attempt.total
    assert "right answer" in review and "Correct answer:" in review


def test_a_question_with_drawn_numbers_shows_its_worked_solution(
    learner_client, quizzes_with, start_attempt, helpers, settings
):
    settings.QUIZ_EXAM_QUESTIONS = 31  # the whole bank, so the drawn question is in the attempt
    quizzes_with(exam=[drawn_batch_question()])
    exam = start_attempt(learner_client, "final-exam")
    number = exam.question_ids.index(Question.objects.get(key="exam-drawn-batch").pk) + 1
    fragment = learner_client.post(helpers.answer_url(exam, number), helpers.wrong_post(exam, number), **HTMX)
    assert "Worked solution of exam-drawn-batch" in fragment.text
    review = result_of(learner_client, finish(learner_client, exam))
    assert review.count("Worked solution of exam-drawn-batch") == 1
    assert review.count("Correct answer:") == 1  # the key of the numbers drawn for this attempt only
    assert "Explanation of exam-" not in review


def test_the_review_opens_once_the_learner_has_passed(learner_client, quizzes, take_quiz, settings):
    settings.QUIZ_EXAM_COOLDOWN_MINUTES = 0
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "100/m"}
    failed = take_quiz(learner_client, "final-exam", correct=0)
    assert "Explanation of exam-" not in result_of(learner_client, failed)
    passed = take_quiz(learner_client, "final-exam", correct=14)
    assert passed.passed
    assert result_of(learner_client, passed).count("Explanation of exam-") == passed.total
    # The attempts that led to the pass open with it...
    assert result_of(learner_client, failed).count("Explanation of exam-") == failed.total
    # ...but not one made after it, unless that one passes too: a passed learner cannot harvest.
    later = take_quiz(learner_client, "final-exam", correct=0)
    assert "Explanation of exam-" not in result_of(learner_client, later)


# The real course: objectives, links to the guides, and a black-box harvest ------------------


@pytest.fixture
def real_course(synced_content, settings):
    quizzes_sync()


def test_the_result_shows_the_score_per_objective_and_links_the_guides(learner_client, real_course, take_quiz):
    exam = take_quiz(learner_client, "final-exam", correct=5)
    questions = Question.objects.in_bulk(exam.question_ids)
    objectives = {questions[pk].objective for pk in exam.question_ids}
    review = result_of(learner_client, exam)
    table = review.split("Your score per objective", 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>\s*<td>(.*?)</td>\s*<td>(\d+) of (\d+)</td>", table, re.S)
    assert len(rows) == len(objectives)
    assert sum(int(total) for _cell, _right, total in rows) == exam.total
    assert sum(int(right) for _cell, right, _total in rows) == exam.correct_count == 5
    # Every wrong question links the objective on the guide that teaches it, and the anchor exists.
    links = set(re.findall(r'Study it again: <a href="(/en/guides/[a-z0-9-]+/#objective-[a-z0-9-]+)"', review))
    wrong = {questions[pk].objective for pk in exam.question_ids[5:]}
    assert len(links) == len(wrong)
    for link in links:
        path, anchor = link.split("#")
        assert f'id="{anchor}"' in learner_client.get(path).text, link


@pytest.mark.parametrize("answer", ["none", "wrong"])
def test_a_black_box_harvest_of_the_real_bank_collects_no_explanation(
    learner_client, real_course, start_attempt, helpers, answer
):
    exam = start_attempt(learner_client, "final-exam")
    questions = [Question.objects.get(pk=pk) for pk in exam.question_ids]
    cards = []  # (the card's HTML, its question)
    if answer == "wrong":
        for number, question in enumerate(questions, start=1):
            reply = learner_client.post(helpers.answer_url(exam, number), helpers.wrong_post(exam, number), **HTMX)
            cards.append((reply.text, question))
    finish(learner_client, exam)
    for language in ("en", "hi", "fr"):
        page = learner_client.get(f"/{language}/quizzes/final-exam/attempts/{exam.key}/result/").text
        for number, question in enumerate(questions, start=1):
            cards.append((page.split(f'id="q{number}"', 1)[1].split("</section>", 1)[0], question))
    fixed = [(card, question) for card, question in cards if not question.is_parameterised]
    assert fixed, "the draw had no question with fixed numbers"
    for card, question in fixed:
        for marker in KEY_MARKUP:
            assert marker not in card, (question.key, marker)
        shown = visible_text(card)
        for language, explanation in question.explanation.items():
            assert explanation.replace("`", "")[:60] not in shown, (question.key, language)


def visible_text(html: str) -> str:
    """What a reader sees: no tags, entities decoded (the explanations' `code` loses its markup)."""
    return unescape(re.sub(r"<[^>]+>", "", html))


def test_no_api_serves_quiz_questions_keys_or_explanations(client, db):
    """The review rules above hold everywhere because the JSON API has no quiz route at all."""
    schema = client.get("/api/openapi.json").json()
    assert not [path for path in schema["paths"] if "quiz" in path or "exam" in path or "attempt" in path]
    properties = {
        name for component in schema["components"]["schemas"].values() for name in component.get("properties", {})
    }
    assert not properties & {"explanation", "hint", "options", "correct", "answer", "key_text"}
