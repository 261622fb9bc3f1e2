"""The screens at the end of the path (issue 39), in every language, on a 360-pixel phone and a desktop:
the dashboard of a learner who finished the course links their certificate and no longer offers
the final exam; a question they once missed comes back there as the question itself and is graded
in its card; the final exam's result gives the score per objective. None scrolls sideways.
Screenshots: test-artifacts/screenshots/end-<lang>-<phone|desktop>-<screen>.png. (The French
header at 360 px is tests/browser/test_phone_header.py's.)"""

import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from tests import factories
from tests.browser.settled import click_when_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GUIDE = "the-accumulation-loop"  # its quiz has single-choice questions: the one missed comes from it
SCREENS = {
    "phone": {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 800}},
}


def finished_course(learner, language: str):
    """Every guide quiz passed (the first one after a try that missed a single-choice question, due
    for review now), the final exam passed and its certificate claimed, all in `language` through
    the quiz and certificate services. Returns (the missed question, the exam attempt, the certificate)."""
    from certificates.services import certificate_issue
    from quizzes.models import Attempt, MissedQuestion, Question, Quiz
    from quizzes.services import attempt_finish, attempt_start

    owned = Attempt.objects.filter(user=learner)
    missed_try = attempt_start(quiz=Quiz.objects.get(slug=GUIDE), user=learner, owned=owned, language=language)
    questions = Question.objects.in_bulk(missed_try.question_ids)
    number = next(n for n, pk in enumerate(missed_try.question_ids, start=1) if questions[pk].type == "single")
    factories.answer_through_services(missed_try, number, factories.wrong_answer(missed_try, number))
    attempt_finish(attempt=missed_try)

    for quiz in Quiz.objects.filter(is_exam=False, is_published=True):
        attempt = attempt_start(quiz=quiz, user=learner, owned=owned, language=language)
        for n in range(1, attempt.total + 1):
            factories.answer_through_services(attempt, n, factories.correct_answer(attempt, n))
        assert attempt_finish(attempt=attempt).passed, quiz.slug
    exam = factories.exam_taken_and_passed(learner, language)
    assert exam.passed
    certificate = certificate_issue(attempt=exam, user=learner)

    missed = MissedQuestion.objects.get(user=learner)
    missed.due_at = missed.missed_at  # due since the miss, not the next day: its card shows today
    missed.save(update_fields=["due_at"])
    return missed, exam, certificate


def fill_answer(card, answer: dict) -> None:
    """Fills a question's fields in `card` with a form as tests/factories.py's answer_form builds it."""
    if "value" in answer:
        card.locator("input[name=value]").fill(answer["value"])
    elif "choice" in answer:
        for position in answer["choice"]:
            card.locator(f"input[name=choice][value='{position}']").check()
    else:  # ordering: each step its place
        for field, rank in answer.items():
            card.locator(f"select[name='{field}']").select_option(rank)


def assert_no_sideways_scroll(page, screen: str) -> None:
    sizes = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert sizes[0] <= sizes[1], (screen, sizes)


def in_language(language: str, text: str) -> str:
    with translation.override(language):
        return translation.gettext(text)


@pytest.mark.parametrize("device", ["phone", "desktop"])
@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_the_end_of_the_path_screens(new_page, live_server, course_site, learner, screenshot, language, device):
    from course.models import Guide
    from quizzes.models import Question

    missed, exam, certificate = finished_course(learner, language)
    page = new_page(user=learner, **SCREENS[device])
    page.set_default_timeout(20_000)
    name = f"end-{language}-{device}"

    # The dashboard of a learner who finished: said so, the certificate linked, no exam to take.
    page.goto(f"{live_server.url}/{language}/accounts/dashboard/")
    page.evaluate("document.fonts.ready")
    course = page.locator("section[aria-labelledby='reads-title']")
    expect(course).to_contain_text(in_language(language, "You have finished the course."))
    certificate_link = course.locator("a.button")
    expect(certificate_link).to_have_attribute("href", f"/{language}/certificates/{certificate.display_id}/")
    expect(certificate_link).to_have_text(in_language(language, "Your certificate"))
    expect(page.locator("main a.button[href$='/quizzes/final-exam/']")).to_have_count(0)  # "take the exam"
    guides = Guide.objects.filter(is_published=True).count()
    expect(course.locator("li.is-passed")).to_have_count(guides)
    assert_no_sideways_scroll(page, "dashboard")
    screenshot(page, f"{name}-dashboard-finished", full_page=True)

    # The missed question, asked again on the dashboard and graded in its card.
    card = page.locator(f"#review-{missed.pk}")
    expect(card.locator(".eyebrow")).to_have_text(missed.answer.attempt.quiz.title_in(language))
    expect(card.locator(".question-prompt")).to_be_visible()
    expect(card.get_by_role("radio")).to_have_count(len(missed.question.options))
    fill_answer(card, factories.review_answer(missed, right=True))
    click_when_settled(card.locator("button[type=submit]"))
    feedback = page.locator(f"#review-{missed.pk} .feedback")
    expect(feedback).to_have_class(re.compile(r"\bcorrect\b"))
    expect(feedback).to_contain_text(in_language(language, "Correct."))
    expect(page.locator(f"#review-{missed.pk} .review-next")).to_be_visible()  # when it comes back
    assert page.url == f"{live_server.url}/{language}/accounts/dashboard/"  # answered in place (htmx)
    missed.refresh_from_db()
    assert missed.reviews_done == 1
    # its end: the feedback and when the question comes back (a phone shows no more of a long card)
    page.locator(f"#review-{missed.pk}").evaluate("card => card.scrollIntoView({block: 'end'})")
    assert_no_sideways_scroll(page, "review")
    screenshot(page, f"{name}-review-answered")

    # The exam's result: passed, with the score per objective of the questions it asked.
    page.goto(f"{live_server.url}/{language}/quizzes/final-exam/attempts/{exam.key}/result/")
    page.evaluate("document.fonts.ready")
    expect(page.locator("main .feedback.score")).to_have_class(re.compile(r"\bcorrect\b"))
    asked = Question.objects.filter(pk__in=exam.question_ids).exclude(objective="")
    scores = page.locator(".objective-scores")
    expect(scores.locator("tbody tr")).to_have_count(len(set(asked.values_list("objective", flat=True))))
    widths = scores.evaluate("table => [table.scrollWidth, table.clientWidth]")
    assert widths[0] <= widths[1], widths  # nothing to scroll sideways inside the table either
    assert_no_sideways_scroll(page, "exam result")
    page.locator("section[aria-labelledby='objectives-title']").evaluate(
        "section => section.scrollIntoView({block: 'start'})"
    )
    screenshot(page, f"{name}-exam-result")
