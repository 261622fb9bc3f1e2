"""Real objects that several test folders build the same way."""

from datetime import timedelta

from django.utils import timezone


def passed_exam_attempt(user, exam):
    """A finished final-exam attempt of `user` that passed, stored directly (no answers needed): what
    a certificate is issued for."""
    from quizzes.models import Attempt

    now = timezone.now()
    return Attempt.objects.create(
        quiz=exam, user=user, language="en", question_ids=[1], started_at=now - timedelta(minutes=9),
        finished_at=now, correct_count=1, passed=True,
    )  # fmt: skip
