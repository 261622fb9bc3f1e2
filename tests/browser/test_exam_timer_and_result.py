"""The timed exam and its result in the browser: the time left counts down live from the server's
deadline (moved by Playwright's clock, never waited for), the end time reads in the learner's own
time zone, and the score per objective fits a phone and a desktop without sideways scrolling."""

from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def exam_under_way(learner):
    """An exam attempt of `learner` that has just started, its deadline on a whole second (so the
    clock below can stand exactly N minutes before it)."""
    from quizzes.models import Attempt, Quiz
    from quizzes.services import attempt_start

    exam = Quiz.objects.get(slug="final-exam")
    attempt = attempt_start(quiz=exam, user=learner, owned=Attempt.objects.filter(user=learner), language="en")
    Attempt.objects.filter(pk=attempt.pk).update(deadline=attempt.deadline.replace(microsecond=0))
    attempt.refresh_from_db()
    return attempt


def attempt_path(attempt, language="en") -> str:
    return f"/{language}/quizzes/final-exam/attempts/{attempt.key}/"


def test_the_time_left_counts_down_every_second(new_page, live_server, course_site, learner):
    attempt = exam_under_way(learner)
    page = new_page(user=learner)
    page.clock.install(time=attempt.deadline - timedelta(minutes=30))
    page.goto(live_server.url + attempt_path(attempt))
    timer = page.locator("#quiz-progress [role=timer]")
    page.clock.pause_at(attempt.deadline - timedelta(minutes=10))
    expect(timer).to_have_text("Time left: 10:00")
    page.clock.run_for(1000)
    expect(timer).to_have_text("Time left: 9:59")
    page.clock.fast_forward("05:00")
    expect(timer).to_have_text("Time left: 4:59")
    page.clock.fast_forward("04:59")
    expect(timer).to_have_text("Time left: 0:00")


def test_the_countdown_keeps_going_after_an_answer_swaps_the_progress_line(
    new_page, live_server, course_site, learner, helpers
):
    attempt = exam_under_way(learner)
    page = new_page(user=learner)
    page.clock.install(time=attempt.deadline - timedelta(minutes=30))
    page.goto(live_server.url + attempt_path(attempt))
    page.clock.pause_at(attempt.deadline - timedelta(minutes=20))
    card = page.locator("#q1")
    for field, value in helpers.correct_answer(attempt, 1).items():
        if field == "value":
            card.locator("input[name=value]").fill(value)
        elif field == "choice":
            for position in value:
                card.locator(f"input[name=choice][value='{position}']").check()
        else:
            card.locator(f"select[name='{field}']").select_option(value)
    card.get_by_role("button", name="Check answer").click()
    expect(page.locator("#q1 .feedback")).to_be_visible()  # the progress line came back with it
    expect(page.locator("#quiz-progress")).to_contain_text("1 of")
    timer = page.locator("#quiz-progress [role=timer]")
    expect(timer).to_have_text("Time left: 20:00")
    page.clock.run_for(2000)
    expect(timer).to_have_text("Time left: 19:58")


def test_the_end_time_is_shown_in_the_learners_time_zone(new_page, live_server, course_site, learner):
    attempt = exam_under_way(learner)
    page = new_page(user=learner, timezone_id="Asia/Kolkata")
    page.goto(live_server.url + attempt_path(attempt))
    local = attempt.deadline.astimezone(ZoneInfo("Asia/Kolkata"))
    ends = page.locator("#quiz-progress time")
    expect(ends).to_contain_text(f"the exam ends at {local.hour % 12 or 12}:{local:%M}")
    expect(ends).to_contain_text("GMT+5:30")
    assert "UTC" not in ends.inner_text()


def test_without_javascript_the_server_gives_the_minutes_left_and_the_end_in_utc(
    new_page, live_server, course_site, learner
):
    attempt = exam_under_way(learner)
    page = new_page(user=learner, java_script_enabled=False, timezone_id="Asia/Kolkata")
    page.goto(live_server.url + attempt_path(attempt))
    progress = page.locator("#quiz-progress").inner_text()
    assert "minutes left" in progress
    assert f"the exam ends at {attempt.deadline:%H:%M} UTC" in progress


@pytest.mark.parametrize("width", [360, 1280])
def test_the_score_per_objective_fits_the_screen(new_page, live_server, course_site, learner, helpers, width):
    attempt = helpers.pass_exam(learner)
    page = new_page(user=learner, viewport={"width": width, "height": 800})
    for language in ("en", "hi", "fr"):
        page.goto(f"{live_server.url}/{language}/quizzes/final-exam/attempts/{attempt.key}/result/")
        page.evaluate("document.fonts.ready")
        scores = page.locator(".objective-scores")
        expect(scores).to_be_visible()
        assert scores.locator("tbody tr").count() > 1
        sizes = page.evaluate(
            """() => {
                const scores = document.querySelector('.objective-scores');
                return {page: document.documentElement.scrollWidth, screen: window.innerWidth,
                        scores: scores.scrollWidth, box: scores.clientWidth};
            }"""
        )
        assert sizes["page"] <= sizes["screen"], (language, sizes)
        assert sizes["scores"] <= sizes["box"], (language, sizes)  # nothing to scroll sideways inside it either
