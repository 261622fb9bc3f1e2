"""htmx's one error handler (static/js/site.js): a swap the server refuses, or a request that never
arrives, shows one translated message instead of failing silently; the next good answer hides it."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FRENCH = "Cette partie de la page n'a pas pu être mise à jour."


@pytest.fixture
def content(transactional_db):
    from course.services import guides_sync

    guides_sync()


def expect_only(page, *kinds: str) -> None:
    """The problems the page fixture would fail on are the ones this test provoked, and no others."""
    assert all(any(k in item for k in kinds) for item in page.problems.items), page.problems.items
    page.problems.items.clear()


def test_a_search_refused_by_the_rate_limit_shows_the_message_in_french(page, live_server, content, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "guide_search": "2/m"}  # the page, then one search
    page.goto(f"{live_server.url}/fr/search/")
    box = page.locator("#swap-error")
    page.fill("#q", "mémoire")
    page.locator("#search-results .card").first.wait_for()
    assert box.is_hidden()
    results = page.locator("#search-results").inner_text()
    page.fill("#q", "zéro")  # the third request of the minute: 429
    box.wait_for(state="visible")
    assert box.inner_text().startswith(FRENCH)
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
