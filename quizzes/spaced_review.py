"""Questions a learner missed come back on their dashboard 1, 3 and 7 days after the miss, with the
part of the guide that teaches them: a short expanding schedule (Leitner's boxes, as flashcard
apps use them), so what was wrong is met again just as it starts to fade."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import get_language

from accounts import learner_versions

from . import formulas
from .models import Answer, MissedQuestion
from .selectors import StudyLink, number_text, open_reviews, study_links

REVIEW_AFTER_DAYS = (1, 3, 7)


class NotDue(Exception):
    """The question is not due for review yet (or its reviews are all done)."""


def schedule_after_miss(answer: Answer) -> None:
    """A wrong answer by a signed-in learner (re)starts the question's schedule from this miss."""
    if answer.is_correct or answer.attempt.user_id is None:
        return
    MissedQuestion.objects.update_or_create(
        user_id=answer.attempt.user_id,
        question_id=answer.question_id,
        defaults={
            "answer": answer,
            "missed_at": answer.answered_at,
            "reviews_done": 0,
            "due_at": answer.answered_at + timedelta(days=REVIEW_AFTER_DAYS[0]),
        },
    )
    learner_versions.bump(answer.attempt.user_id, "reviews")


def pending_reviews(user) -> QuerySet[MissedQuestion]:
    """The learner's missed questions with a review still to come, due or not, soonest first."""
    return (
        MissedQuestion.objects.filter(user=user, due_at__isnull=False)
        .select_related("question", "answer__attempt__quiz__guide")
        .order_by("due_at")
    )


def mark_reviewed(missed: MissedQuestion, now: datetime) -> MissedQuestion:
    """Moves the question to its next review. A late review counts for every review date already
    past, so the next one is always in the future; after the 7-day review the question is done."""
    if missed.due_at is None or missed.due_at > now:
        raise NotDue
    done = missed.reviews_done + 1
    while done < len(REVIEW_AFTER_DAYS) and missed.missed_at + timedelta(days=REVIEW_AFTER_DAYS[done]) <= now:
        done += 1
    missed.reviews_done = done
    missed.due_at = (
        missed.missed_at + timedelta(days=REVIEW_AFTER_DAYS[done]) if done < len(REVIEW_AFTER_DAYS) else None
    )
    missed.save(update_fields=["reviews_done", "due_at"])
    learner_versions.bump(missed.user_id, "reviews")
    return missed


@dataclass(frozen=True)
class ReviewCard:
    missed: MissedQuestion
    prompt: str  # with the numbers the learner was given
    quiz_title: str
    study: StudyLink | None  # the objective in the guide that teaches it
    explanation: str  # empty for an exam question whose explanations are still closed


def review_cards(due: list[MissedQuestion], language: str) -> list[ReviewCard]:
    """The cards of the due questions, with two queries whatever their number (the guides' study
    links, and the exam passes that open explanations)."""
    links = study_links({_objective(m) for m in due}, language)
    opened = open_reviews([missed.answer.attempt for missed in due])
    return [_card(missed, links, language, opened) for missed in due]


def _objective(missed: MissedQuestion) -> str:
    """`<guide-slug>:<id>` as study_links takes it (a guide quiz's questions name only the id)."""
    quiz, objective = missed.answer.attempt.quiz, missed.question.objective
    if not objective or quiz.is_exam or quiz.guide is None:
        return objective
    return f"{quiz.guide.slug}:{objective}"


def _card(missed: MissedQuestion, links: dict[str, StudyLink], language: str, opened: set[int]) -> ReviewCard:
    question, attempt = missed.question, missed.answer.attempt
    prompt = formulas.fill(
        question.prompt.get(language) or question.prompt["en"], attempt.drawn_for(question), number_text
    )
    explains = question.is_parameterised or attempt.pk in opened
    explanation = (question.explanation.get(language) or question.explanation["en"]) if explains else ""
    return ReviewCard(missed, prompt, attempt.quiz.title_in(language), links.get(_objective(missed)), explanation)


def dashboard_context(user) -> dict:
    """Merged into the learner dashboard: the missed questions due today, and when the next one is."""
    now = timezone.now()
    pending = list(pending_reviews(user))  # one query for both
    due = [missed for missed in pending if missed.due_at <= now]
    upcoming = next((missed for missed in pending if missed.due_at > now), None)
    return {"review_cards": review_cards(due, get_language()), "next_review": upcoming}


def next_due(context: dict) -> datetime | None:
    """When the dashboard's review section changes by itself: the next question falls due."""
    return context["next_review"].due_at if context["next_review"] else None
