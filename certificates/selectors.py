"""Queries for the pages that show certificates outside this app."""

from .models import Certificate


def dashboard_context(user) -> dict:
    """Merged into the learner dashboard: every certificate issued to the learner, any status."""
    return {"certificates": list(Certificate.objects.filter(user=user).select_related("superseded_by"))}


def exam_certificate(attempt) -> Certificate | None:
    """The certificate a passed exam attempt holds now (not revoked, not superseded), if claimed."""
    return Certificate.objects.filter(attempt=attempt, revoked_at=None, superseded_by=None).first()
