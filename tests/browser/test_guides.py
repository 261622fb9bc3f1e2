"""A learner reads guides in Chromium: every language, the language switcher, the table of contents."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SLUG = "what-is-gradient-accumulation"


@pytest.fixture
def content(transactional_db):
    from course.services import guides_sync

    guides_sync()


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_reading_a_guide_and_following_its_table_of_contents(page, live_server, content, screenshot, language):
    page.goto(f"{live_server.url}/{language}/guides/{SLUG}/")
    assert page.locator("html").get_attribute("lang") == language
    assert page.locator("h1").inner_text().strip()
    faq_link = page.locator(".toc a[href='#faq']")
    faq_link.click()
    page.wait_for_function("location.hash === '#faq'")
    assert page.locator("#faq").is_visible()
    assert page.locator("#faq").bounding_box()["y"] < 300  # scrolled to the top of the viewport
    # Formulas arrive as MathML, set when the page was rendered: Chromium draws them, no script does.
    formula = page.locator("#guide-body .arithmatex math").first
    assert formula.bounding_box()["width"] > 0 and formula.bounding_box()["height"] > 0
    assert page.locator("script[src*='katex'], link[href*='katex']").count() == 0
    screenshot(page, f"guide-{language}-desktop")


def test_switching_language_stays_on_the_same_guide(page, live_server, content):
    page.goto(f"{live_server.url}/en/guides/{SLUG}/")
    english_title = page.locator("h1").inner_text()
    page.locator(".language-switcher a[lang='hi']").click()
    page.wait_for_url(f"**/hi/guides/{SLUG}/")
    hindi_title = page.locator("h1").inner_text()
    assert hindi_title != english_title
    assert any("\u0900" <= ch <= "\u097f" for ch in page.locator("#guide-body").inner_text())
    page.locator(".language-switcher a[lang='fr']").click()
    page.wait_for_url(f"**/fr/guides/{SLUG}/")
    assert page.locator("html").get_attribute("lang") == "fr"


def test_the_root_page_picks_the_browsers_language(browser, live_server, content):
    context = browser.new_context(locale="fr-FR")
    page = context.new_page()
    page.goto(f"{live_server.url}/")
    assert page.url.endswith("/fr/")
    context.close()


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_a_guide_fits_a_phone_screen(phone_page, live_server, content, screenshot, language):
    phone_page.goto(f"{live_server.url}/{language}/guides/{SLUG}/")
    scroll_width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert scroll_width <= 390
    screenshot(phone_page, f"guide-{language}-phone")


def test_devanagari_is_drawn_with_the_vendored_font(page, live_server, content):
    page.goto(f"{live_server.url}/hi/guides/{SLUG}/")
    page.evaluate("document.fonts.ready")
    loaded = page.evaluate("[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)")
    assert any("Devanagari" in family for family in loaded)


def test_a_refused_newsletter_address_shows_its_error_in_place(page, live_server, content):
    page.goto(f"{live_server.url}/en/guides/{SLUG}/")
    page.fill("#id_newsletter_email", "name@invalid")
    page.locator("#newsletter-box button[type=submit]").click()
    error = page.locator("#newsletter-errors")
    error.wait_for()
    assert "valid email address" in error.inner_text()
    # Chromium logs every 4xx answer to a request; this one is the expected refusal.
    page.problems.items = [p for p in page.problems.items if "status of 400" not in p]
