"""A missed question comes back on the dashboard as the question itself: the learner answers it
there and reads the feedback in its card, as in the quiz."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GUIDE = "the-accumulation-loop"


def missed_single_choice(learner, helpers):
    """A single-choice question of the guide's quiz that the learner answered wrongly, due now."""
    from quizzes.models import Attempt, MissedQuestion, Question, Quiz
    from quizzes.services import attempt_start

    quiz = Quiz.objects.get(slug=GUIDE)
    attempt = attempt_start(quiz=quiz, user=learner, owned=Attempt.objects.filter(user=learner), language="en")
    questions = Question.objects.in_bulk(attempt.question_ids)
    number = next(n for n, pk in enumerate(attempt.question_ids, start=1) if questions[pk].type == "single")
    helpers.answer(attempt, number, helpers.wrong_answer(attempt, number))
    missed = MissedQuestion.objects.get(user=learner)
    MissedQuestion.objects.filter(pk=missed.pk).update(due_at=timezone.now() - timedelta(minutes=1))
    missed.refresh_from_db()
    return missed


def test_a_learner_answers_a_missed_question_on_the_dashboard_and_sees_feedback(
    new_page, live_server, course_site, learner, helpers
):
    missed = missed_single_choice(learner, helpers)
    question = missed.question
    right = next(o for o in question.options if o["correct"])
    page = new_page(user=learner)
    page.goto(f"{live_server.url}/en/accounts/dashboard/")
    card = page.locator(f"#review-{missed.pk}")
    expect(card.locator(".question-prompt")).to_be_visible()
    expect(card.get_by_role("radio")).to_have_count(len(question.options))
    position = missed.layout.index(right["id"]) + 1  # the order drawn for this review
    card.locator(f"input[name=choice][value='{position}']").check()
    card.get_by_role("button", name="Check answer").click()

    feedback = page.locator(f"#review-{missed.pk} .feedback")
    expect(feedback).to_contain_text("Correct.")
    expect(page.locator(f"#review-{missed.pk}")).to_contain_text("This question comes back on")
    assert page.url == f"{live_server.url}/en/accounts/dashboard/"  # answered in place (htmx)
    missed.refresh_from_db()
    assert missed.reviews_done == 1 and missed.due_at > timezone.now() + timedelta(days=2)
