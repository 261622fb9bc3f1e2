"""Quiz workflows: content sync, attempts, grading."""

import random
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts import learner_versions
from course.models import Guide
from course.typography import french_text, typeset_hash

from . import drawing, formulas, grading, spaced_review
from .content import QuizSource, load_all_quizzes
from .models import Answer, Attempt, Question, Quiz

LANGUAGES = [code for code, _name in settings.LANGUAGES]


class QuizError(Exception):
    """A request the rules refuse; `message` is shown to the learner, `status` is the HTTP status."""

    status = 400

    def __init__(self, message: str, *, available_at: datetime | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.available_at = available_at


class InvalidAnswer(QuizError):
    status = 400


class QuestionNotFound(QuizError):
    status = 404


class AlreadyAnswered(QuizError):
    status = 409


class AttemptClosed(QuizError):
    status = 409


class TimeUp(AttemptClosed):
    """An exam answer sent after the attempt's deadline: the attempt is finished on what came before."""


class LimitReached(QuizError):
    status = 429


class NotEligible(QuizError):
    status = 403


# Content ---------------------------------------------------------------------------------------


@transaction.atomic
def quizzes_sync(*, content_dir: Path | None = None) -> dict[str, int]:
    """Loads every quiz file; quizzes whose file is gone are unpublished, removed questions retired."""
    sources = load_all_quizzes(content_dir or settings.CONTENT_DIR, LANGUAGES)
    counts = {"created": 0, "updated": 0, "unchanged": 0, "unpublished": 0}
    for source in sources.values():
        counts[_sync_quiz(source)] += 1
    stale = Quiz.objects.exclude(slug__in=sources.keys()).filter(is_published=True)
    counts["unpublished"] = stale.update(is_published=False)
    return counts


def typeset(texts: dict[str, str]) -> dict[str, str]:
    """One text in every language, the French one set in French typography (course/typography.py)."""
    return {lang: french_text(text) if lang == "fr" else text for lang, text in texts.items()}


def _sync_quiz(source: QuizSource) -> str:
    quiz = Quiz.objects.filter(slug=source.slug).first()
    source_hash = typeset_hash(source.source_hash)  # a changed typography rule stores the texts again
    if quiz and quiz.source_hash == source_hash and quiz.is_published:
        return "unchanged"
    guide = None if source.is_exam else Guide.objects.filter(slug=source.slug).first()
    created = quiz is None
    quiz = quiz or Quiz(slug=source.slug)
    quiz.is_exam = source.is_exam
    quiz.guide = guide
    quiz.title = typeset(source.title)
    quiz.position = guide.order if guide else 0
    quiz.is_published = True
    quiz.source_hash = source_hash
    quiz.save()
    for position, q in enumerate(source.questions):
        # A spot-the-bug question's options are its lines of code, shown as written.
        options = [
            {"id": o.id, "text": o.text if q.type == "spot_bug" else typeset(o.text), "correct": o.correct}
            for o in q.options
        ]
        Question.objects.update_or_create(
            quiz=quiz,
            key=q.id,
            defaults={
                "type": q.type,
                "position": position,
                "prompt": typeset(q.prompt),
                "hint": typeset(q.hint),
                "explanation": typeset(q.explanation),
                "options": options,
                "answer": q.answer,
                "tolerance": q.tolerance,
                "parameters": {name: list(choices) for name, choices in q.parameters},
                "formula": q.formula,
                "objective": q.objective,
                "is_active": True,
            },
        )
    quiz.questions.exclude(key__in=[q.id for q in source.questions]).update(is_active=False)
    return "created" if created else "updated"


def quizzes_sync_summary() -> str:
    counts = quizzes_sync()
    return "Quizzes: " + ", ".join(f"{value} {key}" for key, value in counts.items())


# Attempts --------------------------------------------------------------------------------------


def exam_available_at(*, attempts: QuerySet, now: datetime) -> datetime | None:
    """When the learner behind `attempts` may start another exam attempt, or None for now."""
    exam_attempts = attempts.filter(quiz__is_exam=True)
    waits = []
    last = exam_attempts.filter(finished_at__isnull=False).order_by("-finished_at").first()
    if last:
        waits.append(last.finished_at + timedelta(minutes=settings.QUIZ_EXAM_COOLDOWN_MINUTES))
    recent = list(exam_attempts.filter(started_at__gt=now - timedelta(days=1)).order_by("-started_at"))
    limit = settings.QUIZ_EXAM_DAILY_LIMIT
    if len(recent) >= limit:
        # The window frees up when the limit-th most recent start leaves the last 24 hours.
        waits.append(recent[limit - 1].started_at + timedelta(days=1))
    later = [moment for moment in waits if moment > now]
    return max(later) if later else None


def attempt_start(
    *, quiz: Quiz, user: User | None, owned: QuerySet, language: str, now: datetime | None = None
) -> Attempt:
    """Resumes the learner's unfinished attempt, or draws a new one within the exam limits. An
    attempt whose time ran out is finished first (and stays finished if no new one may start)."""
    now = now or timezone.now()
    for overdue in owned.filter(quiz=quiz, finished_at__isnull=True, deadline__lte=now):
        attempt_finish(attempt=overdue, now=now)
    return _attempt_start(quiz=quiz, user=user, owned=owned, language=language, now=now)


@transaction.atomic
def _attempt_start(*, quiz: Quiz, user: User | None, owned: QuerySet, language: str, now: datetime) -> Attempt:
    if user is not None:
        User.objects.select_for_update().filter(pk=user.pk).first()  # one start at a time per learner
    if quiz.is_exam and user is None:
        # Limits must follow the person, not the browser: a fresh browser would start afresh.
        raise NotEligible(_("Sign in to take the final exam: its limits and your certificate belong to your account."))
    unfinished = owned.filter(quiz=quiz, finished_at__isnull=True).first()
    if unfinished:
        return unfinished
    if quiz.is_exam:
        available_at = exam_available_at(attempts=owned, now=now)
        if available_at:
            raise LimitReached(
                _("You can start the exam again later. This keeps the exam fair for everyone."),
                available_at=available_at,
            )
    questions = list(quiz.questions.filter(is_active=True))
    if not quiz.is_published or not questions:
        raise NotEligible(_("This quiz is not available at the moment."))
    rng = random.SystemRandom()
    if quiz.is_exam:
        questions = rng.sample(questions, min(settings.QUIZ_EXAM_QUESTIONS, len(questions)))
    else:
        rng.shuffle(questions)
    layout = {str(q.pk): drawing.option_order(q, rng) for q in questions if q.options}
    drawn = {str(q.pk): formulas.draw(q.parameters, rng) for q in questions if q.parameters}
    minutes = settings.QUIZ_EXAM_TIME_LIMIT_MINUTES if quiz.is_exam else 0
    return Attempt.objects.create(
        quiz=quiz,
        user=user,
        language=language,
        question_ids=[q.pk for q in questions],
        layout=layout,
        parameters=drawn,
        started_at=now,
        deadline=now + timedelta(minutes=minutes) if minutes > 0 else None,
    )


def attempt_question(attempt: Attempt, number: int) -> Question:
    """The question at 1-based `number` in the attempt."""
    if not 1 <= number <= attempt.total:
        raise QuestionNotFound(_("This question is not part of your attempt."))
    return Question.objects.get(pk=attempt.question_ids[number - 1])


def attempt_answer(*, attempt: Attempt, number: int, data: QueryDict, now: datetime | None = None) -> Answer:
    """Grades one posted answer. Nothing changes when the post is refused, except that an answer
    after the exam's deadline finishes the attempt, graded on the answers given in time."""
    if attempt.is_finished:
        raise AttemptClosed(_("This attempt is finished; its answers can no longer change."))
    if attempt.deadline is not None and attempt.is_over_time(now or timezone.now()):
        attempt_finish(attempt=attempt, now=now)
        raise TimeUp(time_up_message(attempt))
    question = attempt_question(attempt, number)
    shown = attempt.layout.get(str(question.pk), [])
    if sorted(shown) != sorted(o["id"] for o in question.options):
        raise AttemptClosed(_("This question was updated after you started. Please start a new attempt."))
    try:
        response = grading.parse_response(question, shown, data)
    except grading.InvalidAnswer as exc:
        raise InvalidAnswer(str(exc)) from None
    is_correct = grading.is_correct(question, response, attempt.drawn_for(question))
    try:
        # The savepoint keeps a caller's transaction usable when the constraint refuses the insert.
        with transaction.atomic():
            answer = Answer.objects.create(attempt=attempt, question=question, response=response, is_correct=is_correct)
    except IntegrityError:  # answered before (the constraint checks it, no query first): the first one counts
        raise AlreadyAnswered(_("You have already answered this question.")) from None
    spaced_review.schedule_after_miss(answer)
    return answer


def time_up_message(attempt: Attempt) -> str:
    minutes = round((attempt.deadline - attempt.started_at).total_seconds() / 60)
    return ngettext(
        "Time is up: the exam allows %(minutes)d minute. Your attempt is finished and graded on the answers "
        "you gave in time; this answer was not counted.",
        "Time is up: the exam allows %(minutes)d minutes. Your attempt is finished and graded on the answers "
        "you gave in time; this answer was not counted.",
        minutes,
    ) % {"minutes": minutes}


def attempt_finish(*, attempt: Attempt, now: datetime | None = None) -> Attempt:
    """Scores the attempt (unanswered questions count as wrong). Finishing twice changes nothing.
    An attempt finished after its deadline is finished at the deadline: nothing could be answered later."""
    now = now or timezone.now()
    if attempt.deadline is not None:
        now = min(now, attempt.deadline)
    correct = attempt.answers.filter(is_correct=True).count()
    passed = attempt.total > 0 and correct / attempt.total >= settings.QUIZ_PASS_MARK - 1e-9
    if Attempt.objects.filter(pk=attempt.pk, finished_at__isnull=True).update(
        finished_at=now, correct_count=correct, passed=passed
    ):
        # The learner's results (dashboard, course progress), and which exam reviews a pass opens.
        learner_versions.bump(attempt.user_id, "quiz-results")
    attempt.refresh_from_db()
    return attempt


def attempts_claim(*, user: User, keys: list[str]) -> int:
    """Guide-quiz attempts made in this browser before logging in become the learner's. Exam attempts
    never move: they would arrive in the account around its cool-down and daily limit."""
    claimed = Attempt.objects.filter(key__in=keys, user__isnull=True, quiz__is_exam=False).update(user=user)
    if claimed:
        learner_versions.bump(user.pk, "quiz-results")
    return claimed
