from django.urls import reverse

from quizzes.models import Attempt


def test_attempts_before_signing_up_count_once_the_learner_signs_up(client, quizzes, take_quiz):
    attempt = take_quiz(client, "demo-guide")
    assert attempt.user is None and attempt.passed
    response = client.post(
        reverse("accounts:signup"),
        {
            "username": "ravi",
            "email": "ravi@example.com",
            "full_name": "Ravi Kumar",
            "password1": "a-long-Passphrase-42",
            "password2": "a-long-Passphrase-42",
        },
    )
    assert response.status_code == 302
    attempt.refresh_from_db()
    assert attempt.user.username == "ravi"
    dashboard = client.get(reverse("accounts:dashboard"))
    assert reverse("quizzes:result", args=["demo-guide", attempt.key]) in dashboard.text


def test_an_anonymous_exam_attempt_is_never_claimed_past_the_limits(client, learner, quizzes, take_quiz):
    """Exam attempts made without an account (before the exam needed one) stay outside it."""
    guide_attempt = take_quiz(client, "demo-guide")
    exam_quiz = guide_attempt.quiz.__class__.objects.get(slug="final-exam")
    exam = Attempt.objects.create(quiz=exam_quiz, language="en", started_at=guide_attempt.started_at)
    session = client.session
    session["quiz_attempts"] = [guide_attempt.key, exam.key]
    session.save()
    client.post(reverse("accounts:login"), {"username": "asha", "password": "a-long-Passphrase-42"})
    guide_attempt.refresh_from_db()
    exam.refresh_from_db()
    assert guide_attempt.user == learner and exam.user is None


def test_attempts_before_logging_in_are_claimed_on_login(client, learner, quizzes, take_quiz):
    attempt = take_quiz(client, "demo-guide")
    client.post(reverse("accounts:login"), {"username": "asha", "password": "a-long-Passphrase-42"})
    attempt.refresh_from_db()
    assert attempt.user == learner


def test_another_browsers_attempts_are_not_claimed(client, learner, quizzes, take_quiz):
    other = client.__class__()
    attempt = take_quiz(other, "demo-guide")
    client.force_login(learner)
    attempt.refresh_from_db()
    assert attempt.user is None
    assert not Attempt.objects.filter(user=learner).exists()


def test_a_learners_attempt_is_not_visible_after_logging_out(client, learner, quizzes, start_attempt):
    client.force_login(learner)
    attempt = start_attempt(client)
    assert attempt.user == learner
    client.post(reverse("accounts:logout"))
    assert client.get(reverse("quizzes:attempt", args=["demo-guide", attempt.key])).status_code == 404
