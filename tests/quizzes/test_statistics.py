"""Question statistics for staff: attempts, facility and discrimination per question, flags in the admin."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from quizzes.models import Answer, Attempt, Quiz
from quizzes.statistics import MIN_ATTEMPTS_TO_JUDGE, quiz_item_statistics


def finished_attempt(quiz, correct_by_key: dict[str, bool], finished=True) -> Attempt:
    """An attempt shown every question of `quiz`, answered as `correct_by_key` says (keys left out
    are shown but unanswered)."""
    questions = {q.key: q for q in quiz.questions.all()}
    now = timezone.now()
    attempt = Attempt.objects.create(
        quiz=quiz, language="en", question_ids=[q.pk for q in questions.values()],
        started_at=now - timedelta(minutes=5), finished_at=now if finished else None,
        correct_count=sum(correct_by_key.values()),
    )  # fmt: skip
    for key, is_correct in correct_by_key.items():
        Answer.objects.create(attempt=attempt, question=questions[key], response="a", is_correct=is_correct)
    return attempt


@pytest.fixture
def demo_quiz(quizzes):
    return Quiz.objects.get(slug="demo-guide")


def by_key(quiz):
    return {item.question.key: item for item in quiz_item_statistics(quiz)}


def test_facility_and_discrimination_over_finished_attempts(demo_quiz):
    # Strong learners get pick-one right and pick-many wrong; weak learners the other way round.
    strong = {"pick-one": True, "pick-many": False, "effective-batch": True, "loss-scale": True, "window-order": True}
    weak = {"pick-one": False, "pick-many": True, "effective-batch": True, "loss-scale": False, "window-order": False}
    for _ in range(6):
        finished_attempt(demo_quiz, strong)
        finished_attempt(demo_quiz, weak)
    finished_attempt(demo_quiz, {key: False for key in strong}, finished=False)  # not finished: not counted

    items = by_key(demo_quiz)
    assert items["pick-one"].attempts == 12
    assert items["pick-one"].facility == pytest.approx(0.5)
    assert items["pick-one"].discrimination == pytest.approx(1.0)
    assert items["pick-many"].discrimination == pytest.approx(-1.0)
    assert items["pick-many"].review_reasons == ["negative discrimination"]
    assert items["effective-batch"].facility == 1.0
    assert items["effective-batch"].discrimination is None  # everyone got it: no correlation is defined
    assert [str(reason) for reason in items["effective-batch"].review_reasons] == ["too easy"]
    assert items["pick-one"].review_reasons == []


def test_rest_score_is_the_share_correct_on_the_other_questions(demo_quiz):
    # Hand-computed: item scores 1, 0, 1; rest shares 3/4, 1/4, 2/4;
    # Pearson r = 0.25 / (sqrt(6/9) * sqrt(1/8)) = sqrt(3)/2.
    finished_attempt(demo_quiz, {"pick-one": True, "pick-many": True, "effective-batch": True, "loss-scale": True})
    finished_attempt(demo_quiz, {"pick-one": False, "pick-many": True})  # three shown, unanswered: wrong
    finished_attempt(demo_quiz, {"pick-one": True, "pick-many": True, "effective-batch": True})
    item = by_key(demo_quiz)["pick-one"]
    assert item.attempts == 3
    assert item.facility == pytest.approx(2 / 3)
    assert item.discrimination == pytest.approx(3**0.5 / 2)
    assert item.review_reasons == []  # fewer than MIN_ATTEMPTS_TO_JUDGE attempts: not judged yet


def test_a_hard_question_is_flagged_once_enough_attempts_are_in(demo_quiz):
    answers = {"pick-one": True, "pick-many": True, "effective-batch": True, "loss-scale": False}
    for _ in range(MIN_ATTEMPTS_TO_JUDGE - 1):
        finished_attempt(demo_quiz, answers)
    assert by_key(demo_quiz)["loss-scale"].review_reasons == []
    finished_attempt(demo_quiz, answers)
    assert [str(reason) for reason in by_key(demo_quiz)["loss-scale"].review_reasons] == ["too hard"]


def test_the_admin_shows_the_exam_banks_statistics_and_flags(client, quizzes):
    exam = Quiz.objects.get(slug="final-exam")
    first, second = exam.questions.order_by("position")[:2]
    for i in range(MIN_ATTEMPTS_TO_JUDGE):
        finished_attempt(exam, {first.key: True, second.key: i % 2 == 0})
    staff = get_user_model().objects.create_superuser("staff", "staff@example.com", "pw-for-staff-1")
    client.force_login(staff)

    listing = client.get(reverse("admin:quizzes_quiz_changelist"))
    url = reverse("admin:quizzes_quiz_statistics", args=[exam.pk])
    assert url in listing.content.decode()
    page = client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert f'data-question="{first.key}" class="flagged"' in html  # facility 1.0: too easy
    assert f'data-question="{second.key}">' in html  # facility 0.5: sound
    assert "too easy" in html
    assert "questions flagged for review" in html or "question flagged for review" in html


def test_learners_cannot_see_the_statistics(client, learner, quizzes):
    exam = Quiz.objects.get(slug="final-exam")
    client.force_login(learner)
    response = client.get(reverse("admin:quizzes_quiz_statistics", args=[exam.pk]))
    assert response.status_code == 302  # to the admin's log-in: staff only
    assert "/admin/login/" in response["Location"]
