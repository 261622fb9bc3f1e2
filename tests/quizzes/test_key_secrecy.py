"""The answer key never reaches the browser before the answer: not in HTML, attributes, scripts or URLs."""

import re
from html.parser import HTMLParser

import pytest
from django.urls import reverse

from quizzes.models import Question

HTMX = {"HTTP_HX_REQUEST": "true"}
MARKERS = ["feedback", "Explanation of", "Hint for", "right answer", "tag-key", "correct", "is_key", "answer:"]


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs) -> None:
        self.elements.append((tag, dict(attrs)))


def elements(html: str) -> list[tuple[str, dict]]:
    parser = Elements()
    parser.feed(html)
    return parser.elements


def main_part(html: str) -> str:
    return html.split('<main id="main"', 1)[1].split("</main>", 1)[0]


def assert_no_key(html: str, questions: list[Question]) -> None:
    lowered = html.lower()
    for marker in MARKERS:
        assert marker.lower() not in lowered, marker
    for tag, attrs in elements(html):
        for name in attrs:
            assert "correct" not in name and "key" not in name, (tag, name)
        if tag == "input" and attrs.get("name") == "choice":
            # Correct and wrong options look the same: a type, a name and a shown position.
            assert set(attrs) == {"type", "name", "value"} and re.fullmatch(r"[1-9]", attrs["value"]), attrs
    for question in questions:
        for option in question.options:  # option ids would tell "wrong-tool" from "right-tool"
            assert f'value="{option["id"]}"' not in html
        if question.type == "numeric":
            assert f'value="{question.answer:g}"' not in html


@pytest.fixture
def attempt(client, quizzes, start_attempt):
    return start_attempt(client)


def _questions(attempt) -> list[Question]:
    return [Question.objects.get(pk=pk) for pk in attempt.question_ids]


def test_the_rendered_quiz_contains_no_correctness_marker(client, attempt):
    page = client.get(reverse("quizzes:attempt", args=["demo-guide", attempt.key]))
    assert page.status_code == 200
    assert_no_key(main_part(page.text), _questions(attempt))
    assert "Prompt of pick-one" in page.text  # the check above looked at real questions


def test_the_exam_page_contains_no_correctness_marker(learner_client, quizzes, start_attempt):
    exam = start_attempt(learner_client, "final-exam")
    page = learner_client.get(reverse("quizzes:attempt", args=["final-exam", exam.key]))
    assert_no_key(main_part(page.text), _questions(exam))
    assert page.text.count("hx-post=") == 15


@pytest.mark.parametrize("data", [{}, {"value": "sixty-four", "choice": "99", "rank-1": "x"}])
def test_every_fragment_before_answering_contains_no_correctness_marker(client, attempt, data):
    questions = _questions(attempt)
    for number in range(1, attempt.total + 1):
        url = reverse("quizzes:answer", args=["demo-guide", attempt.key, number])
        fragment = client.post(url, data, **HTMX)
        assert fragment.status_code == 400
        assert 'class="message message-error"' in fragment.text
        assert_no_key(fragment.text, questions)
    assert not attempt.answers.exists()


def test_the_ordering_question_starts_in_a_wrong_order(client, attempt):
    page = client.get(reverse("quizzes:attempt", args=["demo-guide", attempt.key]))
    number = next(n for n, q in enumerate(_questions(attempt), 1) if q.type == "ordering")
    section = page.text.split(f'id="q{number}"', 1)[1].split("</section>", 1)[0]
    labels = re.findall(r"Step (\w+)</label>", section)
    assert sorted(labels) == sorted(["zero", "forward", "backward", "step"])
    assert labels != ["zero", "forward", "backward", "step"]


def test_the_script_and_urls_carry_no_key(client, attempt):
    script = (reverse("quizzes:attempt", args=["demo-guide", attempt.key]), "/static/js/quizzes.js")
    assert "correct" not in script[0]
    from django.conf import settings

    source = (settings.BASE_DIR / "static/js/quizzes.js").read_text()
    assert "correct" not in source and "answer-key" not in source


def test_the_review_of_a_failed_exam_never_shows_the_key_nor_the_explanation(learner_client, quizzes, take_quiz):
    """The rest of the exam's review rules: tests/quizzes/test_exam_review.py."""
    exam = take_quiz(learner_client, "final-exam", correct=0)
    assert exam.is_finished and not exam.passed
    review = main_part(learner_client.get(reverse("quizzes:result", args=["final-exam", exam.key])).text)
    assert "Not quite." in review  # what was wrong
    for marker in ("Explanation of exam-", "right answer", "tag-key", "Correct answer:", "Correct order:"):
        assert marker not in review, marker


def test_the_review_of_a_guide_quiz_shows_the_key(client, quizzes, take_quiz):
    attempt = take_quiz(client, "demo-guide", correct=0)
    review = client.get(reverse("quizzes:result", args=["demo-guide", attempt.key])).text
    assert "right answer" in review and "Correct answer:" in review
