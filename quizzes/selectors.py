"""Queries and the read-only shapes the quiz templates show."""

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from django.db.models import QuerySet
from django.urls import reverse
from django.utils import formats
from django.utils.translation import get_language

from course.progress import QuizResult
from course.selectors import next_guide_page

from . import formulas, grading
from .models import Answer, Attempt, Question, Quiz

SESSION_KEY = "quiz_attempts"  # attempt keys of this browser, claimed by the learner on login


def attempts_of(*, user, keys: list[str]) -> QuerySet:
    """The attempts a visitor may see: a learner's own, or this browser's before logging in."""
    if user.is_authenticated:
        return Attempt.objects.filter(user=user)
    return Attempt.objects.filter(user__isnull=True, key__in=keys)


def owned_attempt(*, user, keys: list[str], slug: str, key: str) -> Attempt | None:
    """One attempt by its key, with its quiz, if attempts_of(user, keys) holds it. Looked up by its
    unique key and checked here, not through attempts_of's `key IN (...)` of up to 50 keys."""
    try:  # `get` on the unique key: no ORDER BY and no slug filter to build; the slug is checked here
        attempt = Attempt.objects.select_related("quiz").get(key=key)
    except Attempt.DoesNotExist:
        return None
    if attempt.quiz.slug != slug:
        return None
    if user.is_authenticated:
        return attempt if attempt.user_id == user.pk else None
    return attempt if attempt.user_id is None and key in keys else None


def answered_count(attempt: Attempt) -> int:
    """How many of the attempt's questions are answered (the progress line after each answer)."""
    return attempt.answers.count()


def published_quizzes() -> QuerySet:
    return Quiz.objects.filter(is_published=True)


@dataclass
class OptionItem:
    position: int
    text: str
    chosen: bool = False
    is_key: bool = False  # set only once the attempt is finished, and its review is open
    rank: int = 0  # ordering: the place the learner gave this step (or the place it is shown at)


@dataclass(frozen=True)
class StudyLink:
    """Where the guide teaches an objective: the objective in the guide's "What you will be able to do"."""

    url: str
    text: str  # the objective, in the page's language
    guide_title: str
    order: tuple[int, int] = (0, 0)  # the guide's place in the course, the objective's in the guide


class Graded(Protocol):
    """A graded response: an attempt's Answer, or a spaced review's answer (never stored as one)."""

    response: str | list[str] | float
    is_correct: bool


@dataclass
class QuestionItem:
    number: int
    total: int
    type: str
    prompt: str
    options: list[OptionItem] = field(default_factory=list)
    answer: Graded | None = None
    value: str = ""  # numeric answer as typed back, or the order the learner gave
    hint: str = ""
    explanation: str = ""  # empty while the review is closed (see review_open)
    key_text: str = ""  # the right number, or the right order, once finished
    error: str = ""
    objective: str = ""  # the question's objective id (`<guide-slug>:<id>` in the exam)
    study: StudyLink | None = None  # after a wrong or missing answer to an exam question
    anchor: str = ""  # the id of its card, and the start of its fields' ids: q<number> in an attempt

    def __post_init__(self) -> None:
        self.anchor = self.anchor or f"q{self.number}"


def number_text(value: float) -> str:
    """In the page's language; French groups a quantity's digits from 1 000 up, as its norm does and
    the French course writes them ("2 048", "0,5"). Other languages do not group: a learner who
    copies "12,345" back would answer 12.345."""
    grouped = abs(value) >= 1000 and get_language() == "fr"
    return formats.number_format(Decimal(f"{value:g}"), use_l10n=True, force_grouping=grouped)


def review_open(attempt: Attempt) -> bool:
    """Whether the attempt may show its explanations, and once finished its keys (Moodle's review
    options). A guide quiz: always. The exam: its questions stay in the bank, so nothing that gives
    an answer away is shown until the learner has passed, with this attempt or a later one; an
    attempt after the pass opens only if it passes too. Until then the review says which questions
    were wrong and links the guide that teaches each one."""
    return attempt.pk in open_reviews([attempt])


def open_reviews(attempts: list[Attempt]) -> set[int]:
    """The ids of the `attempts` whose review is open (review_open), with one query at most: the
    passes of the exams still closed, whatever the number of attempts."""
    opened, closed = set(), []
    for attempt in attempts:
        if not attempt.quiz.is_exam:
            opened.add(attempt.pk)
        elif attempt.is_finished and attempt.user_id is not None and attempt.passed:
            opened.add(attempt.pk)
        elif attempt.is_finished and attempt.user_id is not None:
            closed.append(attempt)
    if closed:
        passes = Attempt.objects.filter(
            user_id__in={a.user_id for a in closed}, quiz_id__in={a.quiz_id for a in closed}, passed=True
        ).values_list("user_id", "quiz_id", "started_at")
        for user_id, quiz_id, started_at in passes:
            opened.update(
                a.pk for a in closed if (a.user_id, a.quiz_id) == (user_id, quiz_id) and started_at >= a.started_at
            )
    return opened


def study_links(objectives: set[str], language: str) -> dict[str, StudyLink]:
    """The guide pages that teach exam objectives (`<guide-slug>:<id>`), in `language`."""
    from course.models import GuidePage

    wanted: dict[str, set[str]] = {}
    for objective in objectives:
        slug, _sep, oid = objective.partition(":")
        if oid:
            wanted.setdefault(slug, set()).add(oid)
    pages = GuidePage.objects.filter(guide__slug__in=wanted, guide__is_published=True).select_related("guide")
    by_guide: dict[str, GuidePage] = {}
    for page in pages:
        if page.language == language or page.guide.slug not in by_guide:
            by_guide[page.guide.slug] = page
    links = {}
    for slug, page in by_guide.items():
        url = reverse("course:guide_detail", args=[slug])
        for place, objective in enumerate(page.objectives):
            if objective["id"] in wanted[slug]:
                where = f"{url}#objective-{objective['id']}"
                link = StudyLink(where, objective["text"], page.title, (page.guide.order, place))
                links[f"{slug}:{objective['id']}"] = link
    return links


def question_item(
    attempt: Attempt,
    number: int,
    question: Question,
    answer: Answer | None,
    language: str,
    error: str = "",
    *,
    is_open: bool | None = None,
    links: dict[str, StudyLink] | None = None,
) -> QuestionItem:
    """What the page shows for one question. Before it is answered: prompt and shuffled options only.
    `is_open`: review_open(attempt), when the caller knows it; `links`: study_links for its objective."""
    item = QuestionItem(number, attempt.total, question.type, "", objective=question.objective, error=error)
    # A question whose numbers are drawn per attempt may show its worked solution and key: the
    # numbers differ next time. Any other exam question waits for review_open.
    explains = question.is_parameterised or (review_open(attempt) if is_open is None else is_open)
    graded = answer is not None or attempt.is_finished
    shown, drawn = attempt.layout.get(str(question.pk), []), attempt.drawn_for(question)
    reveal = attempt.is_finished and explains
    show_question(item, question, shown, drawn, language, answer, graded=graded, explains=explains, reveal=reveal)
    if graded and attempt.quiz.is_exam and question.objective and not (answer and answer.is_correct):
        if links is None:
            links = study_links({question.objective}, language)
        item.study = links.get(question.objective)
    return item


def show_question(
    item: QuestionItem,
    question: Question,
    shown: list[str],
    drawn: dict[str, float],
    language: str,
    answer: Graded | None,
    *,
    graded: bool,
    explains: bool,
    reveal: bool,
) -> QuestionItem:
    """Fills `item` with the question as one sitting shows it (`shown`: its option ids in order,
    `drawn`: its numbers) and, once `graded`, with the feedback on `answer`: the hint after a wrong
    answer, the explanation where `explains`, the key where `reveal`. The attempt's questions and the
    spaced review's share it, so that both read alike."""
    texts = {o["id"]: o["text"].get(language) or o["text"]["en"] for o in question.options}
    item.prompt = formulas.fill(question.prompt.get(language) or question.prompt["en"], drawn, number_text)
    response = answer.response if answer else None
    key = grading.correct_response(question, drawn) if reveal else None
    for position, option_id in enumerate(shown, start=1):
        option = OptionItem(position, texts.get(option_id, ""), rank=position)
        if question.type == Question.Type.ORDERING and response:
            option.rank = response.index(option_id) + 1 if option_id in response else position
        elif response is not None:
            option.chosen = option_id == response or (isinstance(response, list) and option_id in response)
        if reveal and question.type != Question.Type.ORDERING:
            option.is_key = option_id == key or (isinstance(key, list) and option_id in key)
        item.options.append(option)
    if not graded:
        return item
    item.answer = answer
    if explains:
        item.explanation = question.explanation.get(language) or question.explanation["en"]
    if answer is not None and not answer.is_correct:
        item.hint = question.hint.get(language) or question.hint["en"]
    if question.type == Question.Type.NUMERIC:
        item.value = number_text(response) if response is not None else ""
        item.key_text = number_text(key) if reveal else ""
    elif question.type == Question.Type.ORDERING:
        item.value = " → ".join(texts.get(i, "") for i in response) if response else ""
        item.key_text = " → ".join(texts.get(i, "") for i in key) if reveal else ""
    return item


def attempt_items(attempt: Attempt, language: str, errors: dict[int, str] | None = None) -> list[QuestionItem]:
    questions = Question.objects.in_bulk(attempt.question_ids)
    answers = {a.question_id: a for a in attempt.answers.all()}
    is_open = review_open(attempt)
    links = study_links({q.objective for q in questions.values()}, language) if attempt.quiz.is_exam else {}
    return [
        question_item(
            attempt,
            number,
            questions[pk],
            answers.get(pk),
            language,
            (errors or {}).get(number, ""),
            is_open=is_open,
            links=links,
        )
        for number, pk in enumerate(attempt.question_ids, start=1)
    ]


@dataclass
class ObjectiveScore:
    objective: str
    study: StudyLink | None
    correct: int = 0
    total: int = 0


def objective_scores(items: list[QuestionItem], language: str) -> list[ObjectiveScore]:
    """The attempt's score per learning objective, in the course's order."""
    links = study_links({item.objective for item in items if item.objective}, language)
    scores: dict[str, ObjectiveScore] = {}
    for item in items:
        if not item.objective:
            continue
        score = scores.setdefault(item.objective, ObjectiveScore(item.objective, links.get(item.objective)))
        score.total += 1
        score.correct += 1 if item.answer and item.answer.is_correct else 0

    def place(score: ObjectiveScore) -> tuple:
        return (score.study is None, score.study.order if score.study else (0, 0), score.objective)

    return sorted(scores.values(), key=place)


def best_attempts(attempts: QuerySet) -> dict[int, Attempt]:
    """The best finished attempt per quiz id (highest score, then the most recent)."""
    best: dict[int, Attempt] = {}
    for attempt in attempts.filter(finished_at__isnull=False).select_related("quiz").order_by("-finished_at"):
        current = best.get(attempt.quiz_id)
        if current is None or attempt.score_percent > current.score_percent:
            best[attempt.quiz_id] = attempt
    return best


def attempt_url(attempt: Attempt) -> str:
    return reverse("quizzes:attempt", args=[attempt.quiz.slug, attempt.key])


def result_url(attempt: Attempt) -> str:
    return reverse("quizzes:result", args=[attempt.quiz.slug, attempt.key])


def dashboard_context(user) -> dict:
    """Merged into the learner dashboard: best results per quiz."""
    attempts = Attempt.objects.filter(user=user)
    best = sorted(best_attempts(attempts).values(), key=lambda a: (a.quiz.is_exam, a.quiz.position, a.quiz.slug))
    return {"quiz_results": [{"attempt": a, "title": a.quiz.title_in(get_language())} for a in best]}


def guide_quiz_results(user, session) -> dict[str, QuizResult]:
    """For the course's progress (course/progress.py): the visitor's best finished attempt at each
    guide's quiz, by guide slug; a signed-out visitor's are this browser's own attempts."""
    attempts = attempts_of(user=user, keys=list(session.get(SESSION_KEY, [])))
    best = best_attempts(attempts.filter(quiz__guide__isnull=False).select_related("quiz__guide"))
    return {a.quiz.guide.slug: QuizResult(a.score_percent, bool(a.passed)) for a in best.values()}


@dataclass(frozen=True)
class NextStep:
    """Where a finished guide quiz leads: the next guide, or after the last one the final exam."""

    url: str
    title: str
    is_exam: bool


def next_step(quiz: Quiz, language: str) -> NextStep | None:
    if quiz.is_exam or quiz.guide is None:
        return None
    following = next_guide_page(quiz.guide, language)
    if following is not None:
        return NextStep(reverse("course:guide_detail", args=[following.guide.slug]), following.title, False)
    exam = published_quizzes().filter(is_exam=True).first()
    return NextStep(reverse("quizzes:quiz", args=[exam.slug]), exam.title_in(language), True) if exam else None


def passed_exam_attempt(attempts: QuerySet, quiz: Quiz) -> Attempt | None:
    """The visitor's latest passed attempt at the exam `quiz` (its certificate's source), if any."""
    if not quiz.is_exam:
        return None
    return attempts.filter(quiz=quiz, passed=True).order_by("-finished_at").first()
