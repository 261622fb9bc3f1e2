"""A learner's way through the course: which guides they have opened and whose quizzes they have
passed, in course order, then the final exam and its certificate, and the step to go on with.

`course` knows the guides and who read them (GuideRead); quiz results belong to `quizzes`, and the
exam's certificate to `certificates`, apps above it, which register providers from their
AppConfig.ready() (as labs registers the guides' figures, course/figures.py), so this module never
imports them. The rules are plain functions over rows; the home page, the course pages and the
dashboard only show what they return.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from accounts import learner_versions

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
class CourseEnd:
    """What comes after the guides, for a signed-in learner: the final exam and its certificate."""

    certificate_url: str = ""  # the page of the learner's valid certificate: the course is finished
    claim_url: str = ""  # a passed exam's result page, where its certificate is still to be claimed


# (user) -> CourseEnd; asked for signed-in learners only (the exam is taken signed in).
CourseEndOf = Callable[..., CourseEnd]
_course_end: list[CourseEndOf] = []


def register_course_end(provider: CourseEndOf) -> None:
    """Sets where the exam's and certificate's state comes from (one provider; again replaces it)."""
    _course_end[:] = [provider]


def course_end(user) -> CourseEnd:
    if not _course_end or not user.is_authenticated:
        return CourseEnd()
    return _course_end[0](user)


@dataclass(frozen=True)
class GuideStep:
    page: GuidePage
    read: bool
    quiz: QuizResult | None  # None: its quiz not finished yet

    @property
    def passed(self) -> bool:
        return self.quiz is not None and self.quiz.passed


@dataclass(frozen=True)
class NextAction:
    """Where the learner goes on: `kind` is "start" (nothing done yet: guide 1), "guide" (the next
    guide not opened), "quiz" (the quiz of a guide opened or tried and not passed), "exam" (every
    guide quiz passed), "claim" (the exam passed, its certificate not claimed) or "finished"."""

    kind: str
    step: GuideStep | None = None  # the guide, for "start", "guide" and "quiz"


@dataclass(frozen=True)
class Progress:
    steps: list[GuideStep]
    end: CourseEnd = CourseEnd()

    @property
    def passed_count(self) -> int:
        return sum(step.passed for step in self.steps)

    @property
    def read_count(self) -> int:
        return sum(step.read for step in self.steps)

    @property
    def started(self) -> bool:
        return any(step.read or step.quiz for step in self.steps) or bool(
            self.end.certificate_url or self.end.claim_url
        )

    @property
    def all_passed(self) -> bool:
        return bool(self.steps) and self.passed_count == len(self.steps)

    @property
    def next_step(self) -> GuideStep | None:
        """The first guide whose quiz is not passed yet: where the learner goes on (None at the end)."""
        return next((step for step in self.steps if not step.passed), None)

    @property
    def finished(self) -> bool:
        """The final exam passed and its certificate claimed (and still valid)."""
        return bool(self.end.certificate_url)

    @property
    def next_action(self) -> NextAction:
        """The one next thing to do. A certificate in hand finishes the course whatever the guide
        quizzes say; a passed exam asks for its certificate first."""
        if self.finished:
            return NextAction("finished")
        if self.end.claim_url:
            return NextAction("claim")
        step = self.next_step
        if not self.started:
            return NextAction("start", step)  # no guides loaded yet: no step, the guides' index
        if step is None:
            return NextAction("exam")
        return NextAction("quiz" if step.read or step.quiz else "guide", step)


def course_progress(
    pages, *, read: set[str], results: Mapping[str, QuizResult], end: CourseEnd = CourseEnd()
) -> Progress:
    """`pages`: the course's guide pages in order; `read`: slugs of the guides opened."""
    steps = [GuideStep(page, page.guide.slug in read, results.get(page.guide.slug)) for page in pages]
    return Progress(steps, end)


def progress_of(user, session: Mapping | None, pages) -> Progress:
    """The visitor's progress over `pages`: guides read (signed in only: reads are remembered for
    an account), quiz results (an account's, or a signed-out browser's own attempts), and the exam
    and certificate (signed in only). A learner's come from the cache while the versions of their
    reads, results and certificates stand (accounts/learner_versions.py: bumped as they change)."""
    if not user.is_authenticated:
        return course_progress(pages, read=set(), results=quiz_results(user, session))
    read, results, end = learner_versions.cached(
        user.pk, ("reads", "quiz-results", "certificates"), "course-progress", lambda: _learner_state(user)
    )
    return course_progress(pages, read=read, results=results, end=end)


def _learner_state(user) -> tuple[set[str], dict[str, QuizResult], CourseEnd]:
    read = set(GuideRead.objects.filter(user=user).values_list("guide__slug", flat=True))
    return read, quiz_results(user), course_end(user)
