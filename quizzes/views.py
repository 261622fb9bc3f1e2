import math

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import get_language
from django.views.decorators.http import require_GET, require_POST

from config.htmx import vary_on_htmx, wants_fragment
from config.ratelimit import limit_exceeded, rate_limit, retry_after
from config.views import rate_limited
from config.waits import please_wait, seconds_until, wait_in_words, with_retry_after
from course.page_cache import public_page

from . import grading, selectors, services, spaced_review
from .models import Attempt, MissedQuestion, Quiz

SESSION_KEY = selectors.SESSION_KEY
SESSION_MAX_ATTEMPTS = 50


def _owned(request: HttpRequest):
    return selectors.attempts_of(user=request.user, keys=request.session.get(SESSION_KEY, []))


def _attempt_or_404(request: HttpRequest, slug: str, key: str) -> Attempt:
    keys = request.session.get(SESSION_KEY, [])
    attempt = selectors.owned_attempt(user=request.user, keys=keys, slug=slug, key=key)
    if attempt is None:
        raise Http404
    return attempt


def _remember(request: HttpRequest, attempt: Attempt) -> None:
    keys = [k for k in request.session.get(SESSION_KEY, []) if k != attempt.key]
    request.session[SESSION_KEY] = ([*keys, attempt.key])[-SESSION_MAX_ATTEMPTS:]


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    best = selectors.best_attempts(_owned(request))
    quizzes = [(quiz, quiz.title_in(get_language()), best.get(quiz.pk)) for quiz in selectors.published_quizzes()]
    return render(request, "quizzes/index.html", {"quizzes": quizzes})


def _quiz_page(request: HttpRequest, quiz: Quiz, status: int = 200, available_at=None) -> HttpResponse:
    owned = _owned(request).filter(quiz=quiz)
    now = timezone.now()
    if quiz.is_exam and available_at is None:
        available_at = services.exam_available_at(attempts=_owned(request), now=now)
    context = {
        "quiz": quiz,
        "title": quiz.title_in(get_language()),
        "question_count": settings.QUIZ_EXAM_QUESTIONS
        if quiz.is_exam
        else quiz.questions.filter(is_active=True).count(),
        "unfinished": owned.filter(finished_at__isnull=True).first(),
        "passed_exam": selectors.passed_exam_attempt(owned, quiz),
        "finished": owned.filter(finished_at__isnull=False)[:10],
        # In the site's own words, rounded up (Django's timeuntil has no Hindi and says "0 minutes" at 59 s).
        "wait": wait_in_words(seconds_until(available_at, now)) if available_at else "",
        "pass_mark": round(settings.QUIZ_PASS_MARK * 100),
        "cooldown_minutes": settings.QUIZ_EXAM_COOLDOWN_MINUTES,
        "daily_limit": settings.QUIZ_EXAM_DAILY_LIMIT,
        "time_limit_minutes": settings.QUIZ_EXAM_TIME_LIMIT_MINUTES,
    }
    return TemplateResponse(request, "quizzes/quiz.html", context, status=status)


@require_GET
@public_page(timeout=300)  # the hash covers the guides only; a quiz's text changes with a content sync
def quiz(request: HttpRequest, slug: str) -> HttpResponse:
    return _quiz_page(request, get_object_or_404(selectors.published_quizzes(), slug=slug))


@require_POST
@rate_limit("quiz_start", key="user_or_ip")  # per learner; signed out, per address
def start(request: HttpRequest, slug: str) -> HttpResponse:
    quiz = get_object_or_404(selectors.published_quizzes(), slug=slug)
    user = request.user if request.user.is_authenticated else None
    try:
        attempt = services.attempt_start(quiz=quiz, user=user, owned=_owned(request), language=get_language())
    except services.QuizError as exc:
        messages.error(request, exc.message)
        page = _quiz_page(request, quiz, status=exc.status, available_at=exc.available_at)
        wait = seconds_until(exc.available_at, timezone.now()) if exc.available_at else None
        return with_retry_after(page, wait)
    _remember(request, attempt)
    return redirect(selectors.attempt_url(attempt))


def _attempt_page(request: HttpRequest, attempt: Attempt, errors=None, status: int = 200) -> HttpResponse:
    items = selectors.attempt_items(attempt, get_language(), errors)
    context = {"attempt": attempt, "title": attempt.quiz.title_in(get_language()), "items": items}
    context["answered"] = sum(1 for item in items if item.answer)
    context["minutes_left"] = _minutes_left(attempt)
    return render(request, "quizzes/attempt.html", context, status=status)


def _minutes_left(attempt: Attempt) -> int | None:
    if attempt.deadline is None:
        return None
    return max(0, math.ceil((attempt.deadline - timezone.now()).total_seconds() / 60))


def _time_up(request: HttpRequest, attempt: Attempt) -> HttpResponse:
    messages.error(request, services.time_up_message(attempt))
    return redirect(selectors.result_url(attempt))


@require_GET
def attempt(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    attempt = _attempt_or_404(request, slug, key)
    if not attempt.is_finished and attempt.is_over_time(timezone.now()):
        return _time_up(request, services.attempt_finish(attempt=attempt))
    if attempt.is_finished:
        return redirect(selectors.result_url(attempt))
    return _attempt_page(request, attempt)


def _question_fragment(
    request: HttpRequest, attempt: Attempt, number: int, error: str = "", status: int = 200, answer=None
):
    """The question's card, plus the progress line swapped out of band. `answer`: the one just
    graded, which holds its question: neither is read again."""
    question = answer.question if answer else services.attempt_question(attempt, number)
    answer = answer or attempt.answers.filter(question=question).first()
    item = selectors.question_item(attempt, number, question, answer, get_language(), error)
    context = {"attempt": attempt, "item": item, "answered": selectors.answered_count(attempt), "oob": True}
    context["minutes_left"] = _minutes_left(attempt)
    return render(request, "quizzes/attempt.html#graded", context, status=status)


def _too_fast(request: HttpRequest, slot: str) -> HttpResponse:
    """An htmx answer over the rate: the wait, in words, put into its card's message slot (the form
    and the learner's choice stay as they were). htmx drops a 4xx unless told to swap it: HX-Retarget
    says where (static/js/site.js swaps such a 429)."""
    wait = retry_after(request) or 60
    response = render(request, "quizzes/attempt.html#too_fast", {"message": please_wait(wait)}, status=429)
    response["HX-Retarget"] = slot
    response["HX-Reswap"] = "innerHTML"
    return with_retry_after(response, wait)


@require_POST
@vary_on_htmx  # htmx gets the graded card, a plain form post a redirect
def answer(request: HttpRequest, slug: str, key: str, number: int) -> HttpResponse:
    # Every answer is counted, before anything is read or written.
    if limit_exceeded(request, "quiz_answer", key="user_or_ip"):
        return _too_fast(request, f"#q{number}-wait") if wants_fragment(request) else rate_limited(request)
    attempt = _attempt_or_404(request, slug, key)
    try:
        graded = services.attempt_answer(attempt=attempt, number=number, data=request.POST)
    except services.QuestionNotFound:
        raise Http404 from None
    except services.TimeUp as exc:
        if wants_fragment(request):
            return _question_fragment(request, attempt, number, exc.message, exc.status)
        return _time_up(request, attempt)
    except services.QuizError as exc:
        if wants_fragment(request):
            return _question_fragment(request, attempt, number, exc.message, exc.status)
        attempt.refresh_from_db()
        return _attempt_page(request, attempt, {number: exc.message}, exc.status)
    if wants_fragment(request):
        return _question_fragment(request, attempt, number, answer=graded)
    return redirect(f"{selectors.attempt_url(attempt)}#q{number}")


@require_POST
def finish(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    attempt = services.attempt_finish(attempt=_attempt_or_404(request, slug, key))
    return redirect(selectors.result_url(attempt))


@require_GET
def result(request: HttpRequest, slug: str, key: str) -> HttpResponse:
    attempt = _attempt_or_404(request, slug, key)
    if not attempt.is_finished:
        return redirect(selectors.attempt_url(attempt))
    items = selectors.attempt_items(attempt, get_language())
    context = {
        "attempt": attempt,
        "title": attempt.quiz.title_in(get_language()),
        "items": items,
        "pass_mark": round(settings.QUIZ_PASS_MARK * 100),
        "review_open": selectors.review_open(attempt),
        "objective_scores": selectors.objective_scores(items, get_language()) if attempt.quiz.is_exam else [],
        "next_step": selectors.next_step(attempt.quiz, get_language()),
    }
    return render(request, "quizzes/result.html", context)


@login_required
@require_POST
@vary_on_htmx  # htmx gets the graded card, a plain form post the same card on a page of its own
def review_answer(request: HttpRequest, pk: int) -> HttpResponse:
    """An answer to a missed question on the dashboard, graded as a quiz answer is; it schedules the
    question's next review (quizzes/spaced_review.py)."""
    if limit_exceeded(request, "quiz_answer", key="user_or_ip"):  # counted as a quiz answer
        return _too_fast(request, f"#review-{pk}-wait") if wants_fragment(request) else rate_limited(request)
    reviews = MissedQuestion.objects.select_related("question", "answer__attempt__quiz__guide")
    missed = get_object_or_404(reviews, pk=pk, user=request.user)
    language = get_language()
    try:
        answer = spaced_review.review_answer(missed, request.POST, timezone.now())
    except grading.InvalidAnswer as exc:
        return _review_card(request, spaced_review.review_cards([missed], language)[0], str(exc), 400)
    except spaced_review.ReviewRefused as exc:
        card = spaced_review.review_cards([missed], language)[0]  # as it is now (a content update draws anew)
        return _review_card(request, card, exc.message, exc.status, closed=isinstance(exc, spaced_review.NotDue))
    return _review_card(request, spaced_review.answered_card(missed, answer, language))


def _review_card(request: HttpRequest, card, error: str = "", status: int = 200, closed: bool = False) -> HttpResponse:
    """The card alone for htmx, else on a page. `closed`: no form, the question is not due."""
    card.item.error = error
    template = "quizzes/_review.html#card" if wants_fragment(request) else "quizzes/review.html"
    return render(request, template, {"card": card, "closed": closed}, status=status)
