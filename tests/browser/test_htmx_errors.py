"""htmx's one error handler (static/js/site.js): a swap the server refuses, or a request that never
arrives, shows one translated message instead of failing silently; the next good answer hides it."""

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ENGLISH = "This part of the page could not be updated. Please check your connection and try again, or reload the page."


def french() -> str:
    """The message in the catalog's French, read through gettext (a reader's rewording never breaks it)."""
    with translation.override("fr"):
        words = gettext(ENGLISH)
    assert words != ENGLISH
    return words


@pytest.fixture
def content(transactional_db):
    from course.services import guides_sync

    guides_sync()


def expect_only(page, *kinds: str) -> None:
    """The problems the page fixture would fail on are the ones this test provoked, and no others."""
    assert all(any(k in item for k in kinds) for item in page.problems.items), page.problems.items
    page.problems.items.clear()


def test_a_search_refused_by_the_rate_limit_shows_the_message_in_french(
    clock_held, page, live_server, content, settings
):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "guide_search": "2/m"}  # the page, then one search
    page.goto(f"{live_server.url}/fr/search/")
    box = page.locator("#swap-error")
    page.fill("#q", "mémoire")
    page.locator("#search-results .card").first.wait_for()
    assert box.is_hidden()
    results = page.locator("#search-results").inner_text()
    page.fill("#q", "zéro")  # the third request of the minute: 429
    box.wait_for(state="visible")
    assert box.inner_text().startswith(french())
    assert page.locator("#search-results").inner_text() == results  # the refusal was not swapped in
    expect_only(page, "console:")  # the browser and htmx log the 429


def test_a_search_sent_while_offline_shows_the_message_and_the_next_answer_hides_it(page, live_server, content):
    page.goto(f"{live_server.url}/en/search/")
    box = page.locator("#swap-error")
    page.context.set_offline(True)
    page.fill("#q", "memory")
    box.wait_for(state="visible")
    assert box.inner_text().startswith("This part of the page could not be updated.")
    page.context.set_offline(False)
    page.fill("#q", "memory accumulation")
    box.wait_for(state="hidden")
    assert page.locator("#search-results .card").count() > 0
    expect_only(page, "failed:", "console:")


def test_a_quiz_answer_sent_empty_comes_back_as_its_card_with_the_reason(page, live_server, course_site):
    page.goto(f"{live_server.url}/en/quizzes/what-is-gradient-accumulation/")
    page.locator("main form[action$='/start/'] button").click()
    page.wait_for_url("**/attempts/**")
    card = page.locator("section.question", has=page.locator("input[name=choice]")).first
    card_id = card.get_attribute("id")
    card.locator("button[type=submit]").click()  # nothing chosen: a 400 carrying the card
    reason = page.locator(f"#{card_id} [role=alert]")
    reason.wait_for()
    assert reason.inner_text().strip()
    assert page.locator("#swap-error").is_hidden()  # swapped in like a success: no error message
    expect_only(page, "console:")  # the browser logs the 400


def test_a_quiz_answer_refused_by_the_rate_limit_says_the_wait_in_its_card_in_hindi(
    clock_held, page, live_server, course_site, settings
):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "1/m"}
    page.goto(f"{live_server.url}/hi/quizzes/what-is-gradient-accumulation/")
    page.locator("main form[action$='/start/'] button").click()
    page.wait_for_url("**/attempts/**")
    cards = page.locator("section.question", has=page.locator("input[name=choice]"))
    first, second = cards.nth(0).get_attribute("id"), cards.nth(1).get_attribute("id")
    page.locator(f"#{first} input[name=choice]").first.check()
    page.locator(f"#{first} button[type=submit]").click()
    page.locator(f"#{first} .feedback").wait_for()  # graded: the one answer of this minute
    page.locator(f"#{second} input[name=choice]").first.check()
    page.locator(f"#{second} button[type=submit]").click()  # the second: 429
    wait = page.locator(f"#{second}-wait [role=alert]")
    wait.wait_for()
    assert re.fullmatch(r"आप बहुत जल्दी-जल्दी अनुरोध भेज रहे हैं। कृपया \d+ (सेकंड|मिनट) रुककर फिर से कोशिश करें।", wait.inner_text())
    assert page.locator(f"#{second} input[name=choice]").first.is_checked()  # the choice is still there
    assert page.locator("#swap-error").is_hidden()  # the card says it: no second, vaguer message
    expect_only(page, "console:")  # the browser logs the 429
