"""Queries for the pages that show certificates outside this app."""

from django.urls import reverse

from course.progress import CourseEnd
from quizzes.models import Attempt
from quizzes.selectors import result_url

from .models import Certificate, group_certificate_id
from .services import revocation_stands


def dashboard_context(user) -> dict:
    """Merged into the learner dashboard: every certificate issued to the learner, any status."""
    return {"certificates": list(Certificate.objects.filter(user=user).select_related("superseded_by"))}


def exam_certificate(attempt) -> Certificate | None:
    """The certificate a passed exam attempt holds now (not revoked, not superseded), if claimed."""
    return Certificate.objects.filter(attempt=attempt, revoked_at=None, superseded_by=None).first()


def course_end(user) -> CourseEnd:
    """For the course's progress (course/progress.py): the learner's valid certificate, else their
    latest passed final exam whose certificate they may still claim (services.certificate_issue's
    rules). Two queries, a third only after a revocation."""
    certificates = list(Certificate.objects.filter(user=user).values_list("id", "revoked_at", "superseded_by_id"))
    valid = next((pk for pk, revoked_at, superseded_by in certificates if not revoked_at and not superseded_by), None)
    if valid is not None:
        return CourseEnd(certificate_url=reverse("certificates:verify", args=[group_certificate_id(valid)]))
    passed = Attempt.objects.filter(user=user, quiz__is_exam=True, passed=True, finished_at__isnull=False)
    attempt = (
        passed.select_related("quiz").only("key", "finished_at", "user", "quiz__slug").order_by("-finished_at").first()
    )
    if attempt is None or (any(revoked_at for _pk, revoked_at, _by in certificates) and revocation_stands(attempt)):
        return CourseEnd()
    return CourseEnd(claim_url=result_url(attempt))
