"""Item statistics for a question bank, as test authors read them: how many finished attempts were
shown each question, its facility (the share who got it right) and its discrimination (how well it
separates learners who did well on the rest of the quiz from those who did not)."""

from dataclasses import dataclass
from statistics import StatisticsError, correlation

from django.utils.translation import gettext_lazy as _

from .models import Answer, Attempt, Question, Quiz

# Below this many attempts a share or a correlation says more about chance than about the question.
MIN_ATTEMPTS_TO_JUDGE = 10
FACILITY_RANGE = (0.2, 0.95)


@dataclass(frozen=True)
class ItemStatistics:
    question: Question
    attempts: int
    facility: float | None  # share of the attempts that answered it correctly
    discrimination: float | None  # correlation of the item's score with the rest of the score

    @property
    def review_reasons(self) -> list[str]:
        """Why the question should be reviewed; empty when it looks sound or is too new to judge."""
        if self.attempts < MIN_ATTEMPTS_TO_JUDGE:
            return []
        reasons = []
        low, high = FACILITY_RANGE
        if self.facility < low:
            reasons.append(_("too hard"))
        elif self.facility > high:
            reasons.append(_("too easy"))
        if self.discrimination is not None and self.discrimination < 0:
            reasons.append(_("negative discrimination"))
        return reasons


def quiz_item_statistics(quiz: Quiz) -> list[ItemStatistics]:
    """The statistics of every question of `quiz`, in bank order, over its finished attempts. A
    question shown in an attempt but left unanswered counts as wrong, as the grade counted it."""
    scores = _scores_by_attempt(quiz)
    return [_item_statistics(question, scores) for question in quiz.questions.order_by("position")]


def _scores_by_attempt(quiz: Quiz) -> dict[int, dict[int, int]]:
    """{attempt id: {question id: 1 if answered correctly else 0}} for every finished attempt."""
    finished = Attempt.objects.filter(quiz=quiz, finished_at__isnull=False)
    scores = {attempt_id: dict.fromkeys(shown, 0) for attempt_id, shown in finished.values_list("id", "question_ids")}
    correct = Answer.objects.filter(attempt__in=finished, is_correct=True)
    for attempt_id, question_id in correct.values_list("attempt_id", "question_id"):
        scores[attempt_id][question_id] = 1
    return scores


def _item_statistics(question: Question, scores: dict[int, dict[int, int]]) -> ItemStatistics:
    item, rest = [], []
    for by_question in scores.values():
        if question.pk not in by_question:
            continue
        item.append(by_question[question.pk])
        others = len(by_question) - 1
        rest.append((sum(by_question.values()) - by_question[question.pk]) / others if others else 0.0)
    facility = sum(item) / len(item) if item else None
    return ItemStatistics(question, len(item), facility, rest_correlation(item, rest))


def rest_correlation(item: list[int], rest: list[float]) -> float | None:
    """Pearson's correlation of the item with the rest of the score; None where it is undefined
    (fewer than two attempts, or everyone scored the same on either side)."""
    try:
        return correlation(item, rest)
    except StatisticsError:
        return None
