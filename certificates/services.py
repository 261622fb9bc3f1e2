"""Certificate workflows: issue for a passed final exam, revoke, and the learner's one name correction."""

from datetime import datetime

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import learner_versions
from accounts.services import profile_for
from course.page_cache import forget_page
from quizzes.models import Attempt

from . import credentials, status_list
from .models import Certificate

NAME_MAX_LENGTH = 120


class CertificateError(Exception):
    """A request the rules refuse; `message` is shown to the learner, `status` is the HTTP status."""

    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidName(CertificateError):
    status = 400


class NotEligible(CertificateError):
    status = 403


def score_band(percent: int) -> str:
    """A ten-point band such as "80–89%", so the certificate does not publish the exact score."""
    low = min(90, percent // 10 * 10)
    return f"{low}–{100 if low == 90 else low + 9}%"


def _sign_and_save(certificate: Certificate) -> Certificate:
    """Signs with a fresh status-list slot; a slot taken by a concurrent issue is drawn again."""
    while True:
        certificate.status_slot = status_list.slot_draw()
        certificate.kid, certificate.credential = credentials.credential_sign(certificate)
        try:
            with transaction.atomic():
                certificate.save(force_insert=True)
            return certificate
        except IntegrityError:
            if not status_list.slot_taken(certificate.status_slot):
                raise


def _valid_certificate(user: User) -> Certificate | None:
    return Certificate.objects.filter(user=user, revoked_at__isnull=True, superseded_by__isnull=True).first()


def revocation_stands(attempt: Attempt) -> bool:
    """True when a certificate of the learner was revoked after this attempt was passed (or was the
    attempt's own): a revocation stands until the learner passes the exam again, so no earlier result
    earns a certificate back. Staff who take a revocation back re-issue (certificate_reissue)."""
    if attempt.user_id is None:
        return False  # a visitor's attempt: no certificate of theirs to have been revoked
    if Certificate.objects.filter(attempt=attempt, revoked_at__isnull=False).exists():
        return True
    latest = Certificate.objects.filter(user_id=attempt.user_id).aggregate(latest=Max("revoked_at"))["latest"]
    return latest is not None and (attempt.finished_at is None or attempt.finished_at <= latest)


REVOCATION_STANDS = gettext_lazy(
    "Your certificate was revoked. Only a final exam passed after its revocation earns a new one."
)


@transaction.atomic
def certificate_issue(*, attempt: Attempt, user: User, now: datetime | None = None) -> Certificate:
    """The learner's certificate for a passed exam attempt (the existing one if they hold one)."""
    User.objects.select_for_update().filter(pk=user.pk).first()
    if not (attempt.quiz.is_exam and attempt.passed and attempt.user_id == user.pk):
        raise NotEligible(_("Only a passed final exam of your own earns a certificate."))
    name = profile_for(user).full_name.strip()
    if not name:
        raise NotEligible(_("Add your full name to your profile first: it is printed on the certificate."))
    existing = _valid_certificate(user)
    if existing:
        return existing
    if revocation_stands(attempt):
        raise NotEligible(str(REVOCATION_STANDS))
    return _sign_and_save(
        Certificate(
            user=user,
            attempt=attempt,
            name=name,
            language=attempt.language,
            score_percent=attempt.score_percent,
            score_band=score_band(attempt.score_percent),
            issued_at=now or timezone.now(),
        )
    )


def certificate_revoke(*, certificate: Certificate, reason: str, now: datetime | None = None) -> bool:
    """Revokes with a reason shown publicly. Returns False when it was already revoked."""
    reason = reason.strip()
    if not reason:
        raise ValueError("a revocation needs a reason")
    updated = Certificate.objects.filter(pk=certificate.pk, revoked_at__isnull=True).update(
        revoked_at=now or timezone.now(), revocation_reason=reason
    )
    certificate.refresh_from_db()
    forget_page("certificates:verify", certificate.display_id)  # QuerySet.update sends no signal
    learner_versions.bump(certificate.user_id, "certificates")
    return updated == 1


@transaction.atomic
def certificate_reissue(*, certificate: Certificate, now: datetime | None = None) -> Certificate:
    """Staff take a revocation back (it was made in error): a new certificate for the same result, under
    a new ID and signed now, in the learner's current name. The revoked one stays revoked, as every
    verifier that saw it revoked expects; the learner's own claim never does this (revocation_stands)."""
    certificate.refresh_from_db()
    if certificate.revoked_at is None:
        raise NotEligible(_("Certificate %(id)s is not revoked.") % {"id": certificate.display_id})
    user = certificate.user
    if user is None:
        raise NotEligible(_("The learner of certificate %(id)s closed their account.") % {"id": certificate.display_id})
    User.objects.select_for_update().filter(pk=user.pk).first()
    if _valid_certificate(user):
        raise NotEligible(_("The learner already holds a valid certificate."))
    return _sign_and_save(
        Certificate(
            user=user,
            attempt=certificate.attempt,
            name=profile_for(user).full_name.strip() or certificate.name,
            language=certificate.language,
            score_percent=certificate.score_percent,
            score_band=certificate.score_band,
            issued_at=now or timezone.now(),
        )
    )


def name_correction_used(user: User) -> bool:
    return Certificate.objects.filter(user=user, is_name_correction=True).exists()


@transaction.atomic
def certificate_correct_name(*, certificate: Certificate, user: User, name: str) -> Certificate:
    """Reissues under a new ID with the corrected name (once per learner); the old one is superseded."""
    User.objects.select_for_update().filter(pk=user.pk).first()
    certificate.refresh_from_db()
    name = " ".join(name.split())
    if certificate.user_id != user.pk or not certificate.is_valid:
        raise NotEligible(_("Only your own valid certificate can be corrected."))
    if name_correction_used(user):
        raise NotEligible(_("You have already corrected your name once. Please contact us for further changes."))
    if not name or len(name) > NAME_MAX_LENGTH:
        raise InvalidName(_("Enter your full name (at most 120 characters)."))
    if name == certificate.name:
        raise InvalidName(_("This is the name already on the certificate."))
    replacement = _sign_and_save(
        Certificate(
            user=user,
            attempt=certificate.attempt,
            name=name,
            language=certificate.language,
            score_percent=certificate.score_percent,
            score_band=certificate.score_band,
            issued_at=certificate.issued_at,  # a corrected name was earned when the original was
            is_name_correction=True,
        )
    )
    Certificate.objects.filter(pk=certificate.pk).update(superseded_by=replacement)
    forget_page("certificates:verify", certificate.display_id)  # QuerySet.update sends no signal
    profile = profile_for(user)
    profile.full_name = name
    profile.save(update_fields=["full_name"])
    learner_versions.bump(user.pk, "certificates")  # the old one superseded (an update: no signal)
    return replacement
