import secrets
from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


def new_attempt_key() -> str:
    return secrets.token_urlsafe(18)


class Quiz(models.Model):
    """A guide's quiz or the final exam, in every language. Rows are written by `sync_quizzes`."""

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
    # The learning objective it examines: an objective id of its guide, `<guide-slug>:<id>` in the exam.
    objective = models.CharField(max_length=160, blank=True)
    is_active = models.BooleanField(default=True)

    class Meta:
        ordering = ["quiz", "position"]
        constraints = [models.UniqueConstraint(fields=["quiz", "key"], name="quizzes_question_unique_key")]

    def __str__(self) -> str:
        return f"{self.quiz.slug}/{self.key}"

    @property
    def is_parameterised(self) -> bool:
        """Its numbers are drawn per attempt, so its worked solution gives nothing away next time."""
        return bool(self.parameters)

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
    # The exam's time limit (QUIZ_EXAM_TIME_LIMIT_MINUTES when it started): answers after it are refused.
    deadline = models.DateTimeField(null=True, blank=True)
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

    def is_over_time(self, now: datetime) -> bool:
        return self.deadline is not None and now >= self.deadline

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


class MissedQuestion(models.Model):
    """A question the learner answered wrongly, coming back on the dashboard to be answered again
    (quizzes/spaced_review.py): the next day, then 3 and 7 days after each right answer; a wrong
    answer, or a new miss in a quiz, brings it back the next day. Each time it comes back its options
    are shuffled and its numbers drawn anew."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="missed_questions")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="+")  # the latest wrong one
    missed_at = models.DateTimeField()
    reviews_done = models.PositiveSmallIntegerField(default=0)
    due_at = models.DateTimeField(null=True, blank=True)  # None once every review is done
    # What its next review shows, drawn as an attempt draws them: option ids in the order shown, and
    # a parameterised question's numbers ({name: value}).
    layout = models.JSONField(default=list, blank=True)
    parameters = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "question"], name="quizzes_missed_once")]
        indexes = [models.Index(fields=["user", "due_at"])]

    def __str__(self) -> str:
        return f"{self.question_id} missed by {self.user_id}"
