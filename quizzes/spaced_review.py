"""Questions a learner missed come back on their dashboard as the questions themselves, to be answered
again: the day after the miss, then 3 and 7 days after each right answer, while a wrong answer brings
the question back the next day. A short expanding schedule (Leitner's boxes, as flashcard apps use
them), so what was wrong is met again just as it starts to fade, and is done with once it is known.
Each time a question comes back its options are shuffled and its numbers drawn anew, so that it is
answered, not recognised; it is graded as a quiz answer is (quizzes/grading.py)."""

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.http import QueryDict
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from accounts import learner_versions

from . import drawing, grading
from .models import Answer, MissedQuestion
from .selectors import QuestionItem, open_reviews, show_question, study_links

# Days until the next review: after the miss, then after the first and the second right answer in a
# row; the third right answer in a row ends the reviews. A wrong answer starts again from the first.
REVIEW_AFTER_DAYS = (1, 3, 7)


class ReviewRefused(Exception):
    """An answer to a review that cannot count; `message` is shown to the learner."""

    status = 409

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotDue(ReviewRefused):
    """The question is not due for review (answered already, or its reviews are all done)."""


def _not_due() -> NotDue:
    return NotDue(
        _(
            "This question is not due for review yet: it was answered already, or comes back later. "
            "Your dashboard says when."
        )
    )


class QuestionChanged(ReviewRefused):
    """The question's options changed (a content update) after its card was shown."""


def schedule_after_miss(answer: Answer) -> None:
    """A wrong answer by a signed-in learner (re)starts the question's schedule from this miss."""
    if answer.is_correct or answer.attempt.user_id is None:
        return
    layout, parameters = drawing.draw(answer.question, random.SystemRandom())
    MissedQuestion.objects.update_or_create(
        user_id=answer.attempt.user_id,
        question_id=answer.question_id,
        defaults={
            "answer": answer,
            "missed_at": answer.answered_at,
            "reviews_done": 0,
            "due_at": answer.answered_at + timedelta(days=REVIEW_AFTER_DAYS[0]),
            "layout": layout,
            "parameters": parameters,
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


@dataclass(frozen=True)
class ReviewAnswer:
    """A graded answer to a review (kept on no row: the schedule is what it changes), with what that
    review showed: its option order and numbers, drawn anew for the next one."""

    response: str | list[str] | float
    is_correct: bool
    layout: list[str]
    parameters: dict[str, float]


def review_answer(missed: MissedQuestion, data: QueryDict, now: datetime) -> ReviewAnswer:
    """Grades an answer to a due question and schedules its next review: further away after a right
    answer (none after the last), the next day after a wrong one. Raises grading.InvalidAnswer for a
    post that is no answer, ReviewRefused for one that cannot count; then nothing changes."""
    if missed.due_at is None or missed.due_at > now:
        raise _not_due()
    question = missed.question
    if not _drawn_for_question(missed):
        raise QuestionChanged(_("This question was updated since your dashboard was loaded: here it is as it is now."))
    response = grading.parse_response(question, missed.layout, data)
    answer = ReviewAnswer(
        response, grading.is_correct(question, response, missed.parameters), missed.layout, missed.parameters
    )
    done = missed.reviews_done + 1 if answer.is_correct else 0
    if not answer.is_correct:
        due = now + timedelta(days=REVIEW_AFTER_DAYS[0])
    else:
        due = now + timedelta(days=REVIEW_AFTER_DAYS[done]) if done < len(REVIEW_AFTER_DAYS) else None
    layout, parameters = drawing.draw(question, random.SystemRandom())
    # Conditional on the review it answers: of two posts of one card, the first one counts.
    changed = MissedQuestion.objects.filter(pk=missed.pk, due_at=missed.due_at, reviews_done=missed.reviews_done)
    if not changed.update(reviews_done=done, due_at=due, layout=layout, parameters=parameters):
        raise _not_due()
    missed.reviews_done, missed.due_at, missed.layout, missed.parameters = done, due, layout, parameters
    learner_versions.bump(missed.user_id, "reviews")
    return answer


@dataclass(frozen=True)
class ReviewCard:
    missed: MissedQuestion
    item: QuestionItem  # the question as it is asked, or as answered with its feedback
    quiz_title: str


def review_cards(due: list[MissedQuestion], language: str) -> list[ReviewCard]:
    """The cards of the due questions, ready to be answered, with one query whatever their number
    (plus one to store new draws for questions whose options a content update changed)."""
    stale = [missed for missed in due if not _drawn_for_question(missed)]
    for missed in stale:
        missed.layout, missed.parameters = drawing.draw(missed.question, random.SystemRandom())
    if stale:
        MissedQuestion.objects.bulk_update(stale, ["layout", "parameters"])
    return [_card(missed, language) for missed in due]


def _drawn_for_question(missed: MissedQuestion) -> bool:
    """Whether the stored draw still fits the question (a content update may change its options)."""
    question = missed.question
    return drawing.matches(question, missed.layout) and missed.parameters.keys() == question.parameters.keys()


def _card(missed: MissedQuestion, language: str) -> ReviewCard:
    item = _item(missed, missed.layout, missed.parameters, language)
    return ReviewCard(missed, item, missed.answer.attempt.quiz.title_in(language))


def answered_card(missed: MissedQuestion, answer: ReviewAnswer, language: str) -> ReviewCard:
    """The card after an answer: the question as it was asked, with the feedback a quiz gives (the
    key and explanation where the quiz's review is open, the guide's part that teaches it after a
    wrong answer)."""
    attempt = missed.answer.attempt
    # A question whose numbers are drawn anew each time may show its worked solution and key; any
    # other exam question waits until the exam is passed (selectors.review_open).
    explains = missed.question.is_parameterised or attempt.pk in open_reviews([attempt])
    item = _item(missed, answer.layout, answer.parameters, language, answer, explains)
    if not answer.is_correct:
        item.study = study_links({_objective(missed)}, language).get(_objective(missed))
    return ReviewCard(missed, item, attempt.quiz.title_in(language))


def _item(missed, layout, parameters, language, answer=None, explains=False) -> QuestionItem:
    """The question as a quiz shows it (selectors.show_question), under an id of its own."""
    question = missed.question
    item = QuestionItem(1, 1, question.type, "", objective=question.objective, anchor=f"review-{missed.pk}")
    graded = answer is not None
    return show_question(
        item, question, layout, parameters, language, answer, graded=graded, explains=explains, reveal=explains
    )


def _objective(missed: MissedQuestion) -> str:
    """`<guide-slug>:<id>` as study_links takes it (a guide quiz's questions name only the id)."""
    quiz, objective = missed.answer.attempt.quiz, missed.question.objective
    if not objective or quiz.is_exam or quiz.guide is None:
        return objective
    return f"{quiz.guide.slug}:{objective}"


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
