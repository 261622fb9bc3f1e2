"""The exam's time limit (QUIZ_EXAM_TIME_LIMIT_MINUTES): fixed when an attempt starts, shown in the
attempt, enforced on the server. The clock is controlled: attempts are started at a given moment
and their deadline moved into the past, never waited for."""

from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone

from quizzes import services
from quizzes.models import Attempt, Quiz

HTMX = {"HTTP_HX_REQUEST": "true"}


def overdue(attempt: Attempt, seconds: int = 1) -> Attempt:
    """The attempt as it is `seconds` after its deadline: started that much longer ago."""
    shift = attempt.deadline - timezone.now() + timedelta(seconds=seconds)
    earlier = {"started_at": attempt.started_at - shift, "deadline": attempt.deadline - shift}
    Attempt.objects.filter(pk=attempt.pk).update(**earlier)
    attempt.refresh_from_db()
    return attempt


def test_an_exam_attempt_gets_its_deadline_when_it_starts(db, learner, quizzes, settings):
    settings.QUIZ_EXAM_TIME_LIMIT_MINUTES = 40
    start = timezone.now() - timedelta(hours=3)
    exam = services.attempt_start(
        quiz=Quiz.objects.get(slug="final-exam"), user=learner, owned=Attempt.objects.none(), language="en", now=start
    )
    assert exam.deadline == start + timedelta(minutes=40)
    guide_quiz = services.attempt_start(
        quiz=Quiz.objects.get(slug="demo-guide"), user=learner, owned=Attempt.objects.none(), language="en", now=start
    )
    assert guide_quiz.deadline is None  # guide quizzes have no limit


def test_no_limit_when_the_setting_is_zero(learner_client, quizzes, start_attempt, settings):
    settings.QUIZ_EXAM_TIME_LIMIT_MINUTES = 0
    exam = start_attempt(learner_client, "final-exam")
    assert exam.deadline is None
    assert "minutes left" not in learner_client.get(reverse("quizzes:attempt", args=["final-exam", exam.key])).text


def test_the_limit_is_shown_before_and_during_the_attempt(learner_client, quizzes, start_attempt, helpers, settings):
    settings.QUIZ_EXAM_TIME_LIMIT_MINUTES = 45
    assert "Time limit: 45 minutes" in learner_client.get(reverse("quizzes:quiz", args=["final-exam"])).text
    exam = start_attempt(learner_client, "final-exam")
    page = learner_client.get(reverse("quizzes:attempt", args=["final-exam", exam.key])).text
    assert "45 minutes left" in page
    assert f'<time datetime="{exam.deadline:%Y-%m-%dT%H:%M:%S}+0000"' in page  # UTC, whole seconds (HTML)
    # quizzes.js counts down from this instant (Date.parse reads this form, not the `+0000` above)
    assert f'data-deadline="{exam.deadline:%Y-%m-%dT%H:%M:%S}.{exam.deadline.microsecond // 1000:03d}Z"' in page
    # Each answer's progress line (swapped out of band) brings the time left up to date.
    Attempt.objects.filter(pk=exam.pk).update(deadline=timezone.now() + timedelta(seconds=90))
    card = learner_client.post(helpers.answer_url(exam, 1), helpers.wrong_post(exam, 1), **HTMX)
    assert "2 minutes left" in card.text


def test_an_answer_after_the_deadline_is_refused_and_the_attempt_graded(
    learner_client, quizzes, start_attempt, helpers
):
    exam = start_attempt(learner_client, "final-exam")
    for number in (1, 2):
        answered = learner_client.post(helpers.answer_url(exam, number), helpers.correct_post(exam, number))
        assert answered.status_code == 302
    exam = overdue(exam)
    late = learner_client.post(helpers.answer_url(exam, 3), helpers.correct_post(exam, 3), **HTMX)
    assert late.status_code == 409
    assert "Time is up" in late.text and "this answer was not counted" in late.text
    exam.refresh_from_db()
    assert exam.answers.count() == 2  # the late answer is not stored
    assert exam.is_finished and exam.finished_at == exam.deadline
    assert exam.correct_count == 2 and exam.passed is False


def test_without_javascript_a_late_answer_leads_to_the_result(learner_client, quizzes, start_attempt, helpers):
    exam = overdue(start_attempt(learner_client, "final-exam"))
    response = learner_client.post(helpers.answer_url(exam, 1), helpers.correct_post(exam, 1), follow=True)
    assert response.redirect_chain[-1][0] == reverse("quizzes:result", args=["final-exam", exam.key])
    assert "Time is up" in response.text
    assert not exam.answers.exists()


def test_opening_an_overdue_attempt_finishes_it(learner_client, quizzes, start_attempt):
    exam = overdue(start_attempt(learner_client, "final-exam"), seconds=3600)
    response = learner_client.get(reverse("quizzes:attempt", args=["final-exam", exam.key]))
    assert response.status_code == 302 and response["Location"].endswith("/result/")
    exam.refresh_from_db()
    assert exam.finished_at == exam.deadline and exam.correct_count == 0


def test_an_answer_just_before_the_deadline_counts(db, learner, quizzes, helpers):
    exam = services.attempt_start(
        quiz=Quiz.objects.get(slug="final-exam"), user=learner, owned=Attempt.objects.none(), language="en"
    )
    data = QueryDict(urlencode(helpers.correct_post(exam, 1), doseq=True))
    answer = services.attempt_answer(attempt=exam, number=1, data=data, now=exam.deadline - timedelta(seconds=1))
    assert answer.is_correct
    with pytest.raises(services.TimeUp):
        services.attempt_answer(attempt=exam, number=2, data=data, now=exam.deadline)
    assert exam.is_finished and exam.correct_count == 1


def test_starting_again_after_the_time_ran_out_finishes_the_old_attempt(
    learner_client, quizzes, start_attempt, settings
):
    settings.QUIZ_EXAM_COOLDOWN_MINUTES = 30
    exam = overdue(start_attempt(learner_client, "final-exam"), seconds=10 * 60)
    again = learner_client.post(reverse("quizzes:start", args=["final-exam"]))
    assert again.status_code == 429  # not resumed: finished at its deadline, so the cool-down runs from then
    exam.refresh_from_db()
    assert exam.finished_at == exam.deadline
    assert Attempt.objects.count() == 1
