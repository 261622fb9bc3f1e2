"""A learner's way through the course: which guides they have opened and whose quizzes they have
passed, in course order, and the guide to go on with.

`course` knows the guides and who read them (GuideRead); quiz results belong to `quizzes`, an app
above it, which registers a provider from its AppConfig.ready() (as labs registers the guides'
figures, course/figures.py), so this module never imports it. The rules are plain functions over
rows; the course page and the dashboard only show what they return.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from .models import GuidePage, GuideRead


@dataclass(frozen=True)
class QuizResult:
    """A visitor's best finished attempt at one guide's quiz."""

    best_percent: int
    passed: bool


# (user, session) -> {guide slug: QuizResult}; `session` holds a signed-out visitor's attempts.
QuizResults = Callable[..., dict[str, QuizResult]]
_quiz_results: list[QuizResults] = []


def register_quiz_results(provider: QuizResults) -> None:
    """Sets where quiz results come from (one provider; registering again replaces it)."""
    _quiz_results[:] = [provider]


def quiz_results(user, session: Mapping | None = None) -> dict[str, QuizResult]:
    return _quiz_results[0](user, session or {}) if _quiz_results else {}


@dataclass(frozen=True)
class GuideStep:
    page: GuidePage
    read: bool
    quiz: QuizResult | None  # None: its quiz not finished yet

    @property
    def passed(self) -> bool:
        return self.quiz is not None and self.quiz.passed


@dataclass(frozen=True)
class Progress:
    steps: list[GuideStep]

    @property
    def passed_count(self) -> int:
        return sum(step.passed for step in self.steps)

    @property
    def read_count(self) -> int:
        return sum(step.read for step in self.steps)

    @property
    def started(self) -> bool:
        return any(step.read or step.quiz for step in self.steps)

    @property
    def all_passed(self) -> bool:
        return bool(self.steps) and self.passed_count == len(self.steps)

    @property
    def next_step(self) -> GuideStep | None:
        """The first guide whose quiz is not passed yet: where the learner goes on (None at the end)."""
        return next((step for step in self.steps if not step.passed), None)


def course_progress(pages, *, read: set[str], results: Mapping[str, QuizResult]) -> Progress:
    """`pages`: the course's guide pages in order; `read`: slugs of the guides opened."""
    return Progress([GuideStep(page, page.guide.slug in read, results.get(page.guide.slug)) for page in pages])


def progress_of(user, session: Mapping | None, pages) -> Progress:
    """The visitor's progress over `pages`: guides read (signed in only: reads are remembered for
    an account) and quiz results (an account's, or a signed-out browser's own attempts)."""
    read = set()
    if user.is_authenticated:
        read = set(GuideRead.objects.filter(user=user).values_list("guide__slug", flat=True))
    return course_progress(pages, read=read, results=quiz_results(user, session))
