"""On a phone 390 CSS pixels wide, no main page scrolls sideways, in any language."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ("en", "hi", "fr")
PHONE_WIDTH = 390


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_main_page_scrolls_sideways_on_a_phone(new_page, live_server, main_pages, screenshot, language):
    signed_in, signed_out = new_page(user=main_pages.user, phone=True), new_page(phone=True)
    too_wide = {}
    for name, path, needs_login in main_pages.for_language(language):
        page = signed_in if needs_login else signed_out
        page.goto(live_server.url + path)
        page.evaluate("document.fonts.ready")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > PHONE_WIDTH:
            wide = page.evaluate(
                """limit => [...document.querySelectorAll('body *')]
                    .filter(e => e.getBoundingClientRect().right > limit + 1)
                    .slice(0, 3).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : ''))""",
                PHONE_WIDTH,
            )
            too_wide[name] = (width, wide)
            screenshot(page, f"phone-too-wide-{language}-{name.replace(' ', '-')}", full_page=True)
    assert too_wide == {}
