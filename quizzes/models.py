import base64
import re
import secrets

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

CERTIFICATE_ID_BYTES = 20  # 160 random bits, 32 base32 characters
CERTIFICATE_ID_RE = re.compile(r"^[A-Z2-7]{32}$")


def new_attempt_key() -> str:
    return secrets.token_urlsafe(18)


def new_certificate_id() -> str:
    return base64.b32encode(secrets.token_bytes(CERTIFICATE_ID_BYTES)).decode()


def normalize_certificate_id(raw: str) -> str | None:
    """The stored form of an ID typed or pasted in any case, with or without dashes and spaces."""
    compact = re.sub(r"[\s-]", "", raw or "").upper()
    return compact if CERTIFICATE_ID_RE.match(compact) else None


def group_certificate_id(compact: str) -> str:
    return "-".join(compact[i : i + 4] for i in range(0, len(compact), 4))


class Quiz(models.Model):
    """A guide's quiz or the final exam, in every language. Rows are written by `sync_content`."""

    slug = models.SlugField(unique=True)
    is_exam = models.BooleanField(default=False)
    guide = models.ForeignKey("course.Guide", null=True, blank=True, on_delete=models.SET_NULL, related_name="quizzes")
    title = models.JSONField(default=dict)  # {"en": ..., "hi": ..., "fr": ...}
    position = models.PositiveIntegerField(default=0)
    is_published = models.BooleanField(default=True)
    source_hash = models.CharField(max_length=64, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["is_exam", "position", "slug"]
        verbose_name = _("quiz")
        verbose_name_plural = _("quizzes")

    def __str__(self) -> str:
        return self.slug

    def title_in(self, language: str) -> str:
        return self.title.get(language) or self.title.get("en", self.slug)


class Question(models.Model):
    """One question. Removed questions stay (inactive) so that old attempts can still be reviewed."""

    class Type(models.TextChoices):
        SINGLE = "single", _("single choice")
        MULTIPLE = "multiple", _("multiple select")
        NUMERIC = "numeric", _("number")
        ORDERING = "ordering", _("ordering")
        SPOT_BUG = "spot_bug", _("spot the bug")

    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="questions")
    key = models.SlugField(max_length=80)
    type = models.CharField(max_length=10, choices=Type.choices)
    position = models.PositiveIntegerField(default=0)
    prompt = models.JSONField(default=dict)
    hint = models.JSONField(default=dict)
    explanation = models.JSONField(default=dict)
    # [{"id": ..., "text": {lang: ...}, "correct": bool}]; for ordering, listed in the correct order.
    options = models.JSONField(default=list, blank=True)
    answer = models.FloatField(null=True, blank=True)
    tolerance = models.FloatField(default=0)
    # A parameterised numeric question: values drawn per attempt from {name: [choices]}, and the key
    # computed on the server from `formula` (see quizzes/formulas.py); `answer` is then empty.
    parameters = models.JSONField(default=dict, blank=True)
    formula = models.CharField(max_length=200, blank=True)
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["quiz", "position"]
        constraints = [models.UniqueConstraint(fields=["quiz", "key"], name="quizzes_question_unique_key")]

    def __str__(self) -> str:
        return f"{self.quiz.slug}/{self.key}"

    def option(self, option_id: str) -> dict | None:
        return next((o for o in self.options if o["id"] == option_id), None)


class Attempt(models.Model):
    """One sitting of a quiz: the questions drawn, the option order shown, and the result."""

    key = models.CharField(max_length=32, unique=True, default=new_attempt_key, editable=False)
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="attempts")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="quiz_attempts"
    )
    language = models.CharField(max_length=8, choices=settings.LANGUAGES)
    question_ids = models.JSONField(default=list)  # Question pks, in the order shown
    layout = models.JSONField(default=dict)  # {question pk: [option ids in the order shown]}
    parameters = models.JSONField(default=dict, blank=True)  # {question pk: {name: value drawn}}
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    correct_count = models.PositiveSmallIntegerField(default=0)
    passed = models.BooleanField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]
        indexes = [models.Index(fields=["user", "quiz", "started_at"])]

    def __str__(self) -> str:
        return f"{self.quiz.slug} attempt {self.pk}"

    @property
    def total(self) -> int:
        return len(self.question_ids)

    def drawn_for(self, question: Question) -> dict[str, float]:
        """The numbers drawn for a parameterised question in this attempt ({} for the others)."""
        return self.parameters.get(str(question.pk), {})

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def score_percent(self) -> int:
        return round(100 * self.correct_count / self.total) if self.total else 0


class Answer(models.Model):
    """A graded answer. One per question and attempt: an answered question is locked."""

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="answers")
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="+")
    response = models.JSONField()  # an option id, a list of option ids, or a number
    is_correct = models.BooleanField()
    answered_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["attempt", "question"], name="quizzes_answer_once")]

    def __str__(self) -> str:
        return f"answer to {self.question_id} in attempt {self.attempt_id}"


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
    kid = models.CharField(max_length=100)
    credential = models.TextField()  # the signed Open Badges 3.0 VC-JWT, exactly as issued
    revoked_at = models.DateTimeField(null=True, blank=True)
    revocation_reason = models.TextField(blank=True)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    is_name_correction = models.BooleanField(default=False)
    # This certificate's bit in the revocation status lists (quizzes/status_list.py): list
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
