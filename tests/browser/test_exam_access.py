"""The final exam belongs to an account: a visitor who is not signed in cannot start it, and a
learner at the daily limit cannot start another attempt from a second browser."""

import pytest
from django.utils import translation
from django.utils.translation import gettext

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIGN_IN = "Sign in to take the final exam: its limits and your certificate belong to your account."


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_a_visitor_who_is_not_signed_in_is_asked_to_log_in_before_the_exam(
    new_page, live_server, course_site, language
):
    page = new_page()
    page.goto(f"{live_server.url}/{language}/quizzes/final-exam/")
    with translation.override(language):
        assert gettext(SIGN_IN) in page.inner_text("main")
    assert page.locator("main form[action$='/start/']").count() == 0
    page.locator("main a.button[href*='/accounts/login/']").click()
    page.wait_for_url(f"**/{language}/accounts/login/?next=/{language}/quizzes/final-exam/")


def test_a_learner_at_the_daily_limit_cannot_start_the_exam_from_a_second_browser(
    new_page, live_server, course_site, learner, helpers, settings
):
    settings.QUIZ_EXAM_COOLDOWN_MINUTES, settings.QUIZ_EXAM_DAILY_LIMIT = 0, 1
    first = new_page(user=learner)
    first.goto(f"{live_server.url}/en/quizzes/final-exam/")
    first.get_by_role("button", name="Start the exam").click()
    first.wait_for_url("**/final-exam/attempts/**")
    first.locator("main form[action$='/finish/'] button").click()
    first.wait_for_url("**/result/")

    second = new_page(user=learner)  # another browser, same account
    second.goto(f"{live_server.url}/en/quizzes/final-exam/")
    assert "You can start a new attempt in" in second.inner_text("main")
    assert second.get_by_role("button", name="Start the exam").count() == 0
