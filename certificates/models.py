"""A certificate as issued for a passed final exam, and its public ID."""

import base64
import re
import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from quizzes.models import Attempt

CERTIFICATE_ID_BYTES = 20  # 160 random bits, 32 base32 characters
CERTIFICATE_ID_RE = re.compile(r"^[A-Z2-7]{32}$")


def new_certificate_id() -> str:
    return base64.b32encode(secrets.token_bytes(CERTIFICATE_ID_BYTES)).decode()


def normalize_certificate_id(raw: str) -> str | None:
    """The stored form of an ID typed or pasted in any case, with or without dashes and spaces."""
    compact = re.sub(r"[\s-]", "", raw or "").upper()
    return compact if CERTIFICATE_ID_RE.match(compact) else None


def group_certificate_id(compact: str) -> str:
    return "-".join(compact[i : i + 4] for i in range(0, len(compact), 4))


class Certificate(models.Model):
    """A certificate as issued. Never edited after issue except to revoke or supersede it."""

    class Status(models.TextChoices):
        VALID = "valid", _("Valid")
        REVOKED = "revoked", _("Revoked")
        SUPERSEDED = "superseded", _("Superseded")

    id = models.CharField(primary_key=True, max_length=32, default=new_certificate_id, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="certificates"
    )
    attempt = models.ForeignKey(Attempt, null=True, blank=True, on_delete=models.SET_NULL, related_name="certificates")
    name = models.CharField(_("name as issued"), max_length=120)
    language = models.CharField(max_length=8, choices=settings.LANGUAGES)
    score_percent = models.PositiveSmallIntegerField()
    score_band = models.CharField(max_length=20)
    issued_at = models.DateTimeField()
    # The signing key's `kid` exactly as in the credential's header: its URL (keys.key_url), or the bare
    # RFC 7638 thumbprint for credentials signed before kid URLs.
    kid = models.CharField(max_length=300)
    credential = models.TextField()  # the signed Open Badges 3.0 VC-JWT, exactly as issued
    revoked_at = models.DateTimeField(null=True, blank=True)
    revocation_reason = models.TextField(blank=True)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    is_name_correction = models.BooleanField(default=False)
    # This certificate's bit in the revocation status lists (certificates/status_list.py): list
    # slot // 131072 + 1, bit slot % 131072. Drawn at random; empty for certificates issued before.
    status_slot = models.PositiveIntegerField(null=True, blank=True, unique=True, editable=False)

    class Meta:
        ordering = ["-issued_at"]
        verbose_name = _("certificate")
        verbose_name_plural = _("certificates")

    def __str__(self) -> str:
        return f"{self.display_id} ({self.name})"

    @property
    def display_id(self) -> str:
        return group_certificate_id(self.id)

    @property
    def status(self) -> str:
        if self.revoked_at:
            return self.Status.REVOKED
        if self.superseded_by_id:
            return self.Status.SUPERSEDED
        return self.Status.VALID

    @property
    def status_label(self) -> str:
        return self.Status(self.status).label

    @property
    def is_valid(self) -> bool:
        return self.status == self.Status.VALID
