"""The guided path in Chromium, in every language: Start on the home page opens guide 1, its quiz
offers guide 2, the course page and the dashboard show the progress with the guides' titles, the
last guide's quiz offers the final exam, and a passed exam reads as a success whose certificate
is one click away. A screenshot of each step goes to test-artifacts/screenshots/path-<lang>-*."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.settled import click_when_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def answer_in_page(page, number: int, answer: dict) -> None:
    section = page.locator(f"#q{number}")
    if "value" in answer:
        section.locator("input[name=value]").fill(answer["value"])
    elif "choice" in answer:
        for position in answer["choice"]:
            section.locator(f"input[name=choice][value='{position}']").check()
    else:  # ordering: each step its place, first place first
        for field, rank in sorted(answer.items(), key=lambda item: int(item[1])):
            section.locator(f"select[name='{field}']").select_option(rank)
    section.locator("button[type=submit]").click()
    expect(section.locator(".feedback")).to_have_class(re.compile("correct"))


def pass_quiz_in_page(page, helpers, slug: str):
    """From the quiz's page: start it, answer every question right, finish; returns the attempt."""
    from quizzes.models import Attempt

    page.locator("main form[action$='/start/'] button").click()
    page.wait_for_url(f"**/quizzes/{slug}/attempts/**")
    attempt = Attempt.objects.filter(quiz__slug=slug).latest("started_at")
    for number in range(1, attempt.total + 1):
        answer_in_page(page, number, helpers.correct_answer(attempt, number))
    page.locator("main form[action$='/finish/'] button").click()
    page.wait_for_url("**/result/")
    return attempt


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_the_path_from_start_to_the_certificate(
    new_page, live_server, course_site, learner, helpers, screenshot, language
):
    from course.models import Guide, GuidePage

    guides = list(Guide.objects.filter(is_published=True).order_by("order", "slug"))
    first, second, last = guides[0], guides[1], guides[-1]
    titles = dict(GuidePage.objects.filter(language=language).values_list("guide__slug", "title"))
    page = new_page(user=learner)
    page.set_default_timeout(20_000)
    shot = lambda step: screenshot(page, f"path-{language}-{step}")  # noqa: E731

    # Start opens guide 1.
    page.goto(f"{live_server.url}/{language}/")
    shot("01-home")
    page.locator("main .hero a.button").first.click()
    page.wait_for_url(f"**/{language}/guides/{first.slug}/")
    expect(page.locator("h1")).to_have_text(titles[first.slug])
    shot("02-guide-1")

    # Its quiz, passed, offers guide 2.
    click_when_settled(page.locator(f"#try-it a[href='/{language}/quizzes/{first.slug}/']"))
    pass_quiz_in_page(page, helpers, first.slug)
    expect(page.locator(".feedback.score")).to_have_class(re.compile("correct"))
    following = page.locator("[data-next-step]")
    expect(following).to_have_attribute("href", f"/{language}/guides/{second.slug}/")
    expect(following).to_contain_text(titles[second.slug])
    shot("03-quiz-1-next-guide")
    following.click()
    page.wait_for_url(f"**/{language}/guides/{second.slug}/")
    expect(page.locator("h1")).to_have_text(titles[second.slug])

    # The course page: one quiz passed, go on with guide 2's quiz (the guide is open already).
    page.goto(f"{live_server.url}/{language}/course/")
    progress = page.locator(".course-progress")
    expect(progress.locator("progress")).to_have_attribute("value", "1")
    expect(progress.locator("a.button")).to_have_attribute("href", f"/{language}/quizzes/{second.slug}/")
    expect(page.locator(f"#guide-{first.slug} .progress-passed")).to_be_visible()
    expect(page.locator(f"#guide-{second.slug} .progress-passed")).to_have_count(0)
    shot("04-course-progress")

    # The last guide's quiz offers the final exam.
    page.goto(f"{live_server.url}/{language}/quizzes/{last.slug}/")
    pass_quiz_in_page(page, helpers, last.slug)
    exam = page.locator("[data-next-step]")
    expect(exam).to_have_attribute("href", f"/{language}/quizzes/final-exam/")
    shot("05-last-quiz-final-exam")

    # The dashboard: every guide by its title, the two passed ones marked.
    page.goto(f"{live_server.url}/{language}/accounts/dashboard/")
    section = page.locator("section[aria-labelledby='reads-title']")
    expect(section.locator("li")).to_have_count(len(guides))
    for guide in guides:
        expect(section.locator(f"li a[href='/{language}/guides/{guide.slug}/']")).to_contain_text(titles[guide.slug])
    expect(section.locator("li.is-passed")).to_have_count(2)
    shot("06-dashboard")

    # A passed exam: a success, and the certificate claimed from the exam's page.
    helpers.pass_exam(learner, language)
    page.goto(f"{live_server.url}/{language}/quizzes/final-exam/")
    success = page.locator("main .feedback.score")
    expect(success).to_have_class(re.compile("correct"))
    assert page.locator("main .message-error").count() == 0
    shot("07-exam-passed")
    page.locator("main form[action$='/certificate/'] button").click()
    page.wait_for_url(f"**/{language}/certificates/**")
    expect(page.locator("h1")).to_have_text("Asha Verma")
    page.goto(f"{live_server.url}/{language}/quizzes/final-exam/")
    expect(page.locator(f"main a[href^='/{language}/certificates/']")).to_be_visible()
    shot("08-exam-page-links-the-certificate")

    # Finished: the home page, the course's guides and the dashboard say so, with the certificate.
    for path in ("", "guides/", "accounts/dashboard/"):
        page.goto(f"{live_server.url}/{language}/{path}")
        expect(page.locator(f"main a.button[href^='/{language}/certificates/']")).to_be_visible()
        expect(page.locator("main a.button[href$='/quizzes/final-exam/']")).to_have_count(0)
    shot("09-course-finished")
