"""Missed questions come back on the dashboard 1, 3 and 7 days after the miss (a controlled clock)."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.urls import reverse

from quizzes.models import MissedQuestion, Question, Quiz
from quizzes.spaced_review import mark_reviewed
from tests.factories import answer_url, correct_answer, wrong_answer

MISSED_AT = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


@pytest.fixture
def clock():
    """The clock, stopped at the moment of the miss; `clock.move_to(...)` moves it."""
    with time_machine.travel(MISSED_AT, tick=False) as traveller:
        yield traveller


def miss_first_question(client, start_attempt, slug="demo-guide") -> Question:
    attempt = start_attempt(client, slug)
    assert client.post(answer_url(attempt, 1), wrong_answer(attempt, 1)).status_code == 302
    assert client.post(answer_url(attempt, 2), correct_answer(attempt, 2)).status_code == 302
    client.post(reverse("quizzes:finish", args=[slug, attempt.key]))
    return Question.objects.get(pk=attempt.question_ids[0])


def cards_on_dashboard(client) -> list[str]:
    """The question keys the dashboard shows for review."""
    html = client.get(reverse("accounts:dashboard")).content.decode()
    section = html.split('id="review-section"')[1].split("</section>")[0]
    return [part.split('"')[0] for part in section.split('class="review-card" data-question="')[1:]]


def review(client, question: Question):
    missed = MissedQuestion.objects.get(question=question)
    return client.post(reverse("quizzes:review_done", args=[missed.pk]))


def test_a_missed_question_comes_back_after_1_3_and_7_days(clock, learner_client, quizzes, start_attempt):
    missed = miss_first_question(learner_client, start_attempt)
    assert MissedQuestion.objects.filter(user__username="asha").count() == 1  # the right answer is not scheduled
    assert cards_on_dashboard(learner_client) == []

    for day in (1, 3, 7):
        clock.move_to(MISSED_AT + timedelta(days=day) - timedelta(minutes=1))
        assert cards_on_dashboard(learner_client) == [], f"shown before day {day}"
        clock.move_to(MISSED_AT + timedelta(days=day))
        assert cards_on_dashboard(learner_client) == [missed.key], f"not shown on day {day}"
        assert review(learner_client, missed).status_code == 302
        assert cards_on_dashboard(learner_client) == []

    clock.move_to(MISSED_AT + timedelta(days=8))
    assert cards_on_dashboard(learner_client) == []
    assert MissedQuestion.objects.get(question=missed).due_at is None


def test_the_card_says_when_the_next_review_is(clock, learner_client, quizzes, start_attempt):
    miss_first_question(learner_client, start_attempt)
    html = learner_client.get(reverse("accounts:dashboard")).content.decode()
    assert "Nothing to review today. The next question you missed comes back on 2 Dec 2026." in html


def test_the_dashboard_reads_the_due_and_the_next_reviews_in_one_query(clock, learner_client, quizzes, start_attempt):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    missed = miss_first_question(learner_client, start_attempt)
    for day, shown in ((0, []), (1, [missed.key])):
        clock.move_to(MISSED_AT + timedelta(days=day))
        with CaptureQueriesContext(connection) as captured:
            assert cards_on_dashboard(learner_client) == shown
        assert sum('FROM "quizzes_missedquestion"' in q["sql"] for q in captured.captured_queries) == 1


def test_a_new_miss_starts_the_schedule_again(clock, learner_client, quizzes, start_attempt):
    question = miss_first_question(learner_client, start_attempt)
    clock.move_to(MISSED_AT + timedelta(days=1))
    review(learner_client, question)
    clock.move_to(MISSED_AT + timedelta(days=2))
    attempt = start_attempt(learner_client)
    number = attempt.question_ids.index(question.pk) + 1
    response = learner_client.post(answer_url(attempt, number), wrong_answer(attempt, number))
    assert response.status_code == 302
    missed = MissedQuestion.objects.get(question=question)
    assert (missed.reviews_done, missed.due_at) == (0, MISSED_AT + timedelta(days=3))  # 2 days + 1


def test_a_late_review_counts_for_the_dates_already_past(learner, quizzes):
    from quizzes.models import Answer, Attempt

    quiz = Quiz.objects.get(slug="demo-guide")
    question = quiz.questions.first()
    attempt = Attempt.objects.create(
        quiz=quiz, user=learner, language="en", question_ids=[question.pk], started_at=MISSED_AT
    )
    answer = Answer.objects.create(attempt=attempt, question=question, response="a", is_correct=False)
    missed = MissedQuestion.objects.create(
        user=learner, question=question, answer=answer, missed_at=MISSED_AT, due_at=MISSED_AT + timedelta(days=1)
    )
    mark_reviewed(missed, MISSED_AT + timedelta(days=5))  # the day-1 and day-3 reviews are both past
    assert (missed.reviews_done, missed.due_at) == (2, MISSED_AT + timedelta(days=7))
    mark_reviewed(missed, MISSED_AT + timedelta(days=9))
    assert (missed.reviews_done, missed.due_at) == (3, None)


def test_the_htmx_button_swaps_the_section(clock, learner_client, quizzes, start_attempt):
    question = miss_first_question(learner_client, start_attempt)
    clock.move_to(MISSED_AT + timedelta(days=1))
    missed = MissedQuestion.objects.get(question=question)
    response = learner_client.post(reverse("quizzes:review_done", args=[missed.pk]), headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200
    assert html.startswith('<section id="review-section"')
    assert "comes back on 4 Dec 2026" in html


def test_a_learner_cannot_mark_anothers_question(clock, client, learner_client, quizzes, start_attempt):
    from tests.factories import account

    question = miss_first_question(learner_client, start_attempt)
    other = account("ravi", full_name="Ravi")
    client.force_login(other)
    clock.move_to(MISSED_AT + timedelta(days=1))
    assert review(client, question).status_code == 404
    assert MissedQuestion.objects.get(question=question).reviews_done == 0


def test_signed_out_misses_are_not_scheduled(client, quizzes, start_attempt):
    miss_first_question(client, start_attempt)
    assert not MissedQuestion.objects.exists()


def test_a_card_links_the_objective_that_teaches_the_question(clock, learner_client, synced_content):
    from quizzes.services import quizzes_sync

    quizzes_sync()
    quiz = Quiz.objects.get(slug="what-is-gradient-accumulation")
    response = learner_client.post(reverse("quizzes:start", args=[quiz.slug]))
    attempt = quiz.attempts.get(key=response["Location"].rstrip("/").split("/")[-1])
    learner_client.post(answer_url(attempt, 1), wrong_answer(attempt, 1))
    question = Question.objects.get(pk=attempt.question_ids[0])
    clock.move_to(MISSED_AT + timedelta(days=1))
    html = learner_client.get(reverse("accounts:dashboard")).content.decode()
    guide_url = reverse("course:guide_detail", args=[quiz.guide.slug])
    assert f'href="{guide_url}#objective-{question.objective}"' in html
    assert "Show the explanation" in html  # a guide quiz's explanations are open


def test_an_exam_card_keeps_the_explanation_closed_until_the_exam_is_passed(
    clock, learner_client, quizzes, start_attempt
):
    question = miss_first_question(learner_client, start_attempt, slug="final-exam")
    assert not question.is_parameterised
    clock.move_to(MISSED_AT + timedelta(days=1))
    html = learner_client.get(reverse("accounts:dashboard")).content.decode()
    assert f'data-question="{question.key}"' in html
    assert "Show the explanation" not in html  # the exam's questions stay in the bank
    assert f"Explanation of {question.key}" not in html
