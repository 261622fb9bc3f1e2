"""Framework tabs in a guide: without JavaScript the raw PyTorch tab shows and a click on another
tab's label shows that tab's code (radio inputs and CSS); with JavaScript the framework chosen on
one page is chosen again on another, through a cookie."""

import pytest
from playwright.sync_api import expect

from tests.browser.settled import click_when_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def content(transactional_db):
    from course.services import guides_sync

    guides_sync()


def _shown_code(tab_set):
    return tab_set.locator(".tabbed-block:visible pre code")


def test_without_javascript_a_click_on_a_label_shows_that_frameworks_code(new_page, live_server, content, screenshot):
    page = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/en/guides/the-accumulation-loop/")
    tab_set = page.locator("#guide-body .tabbed-set").first
    expect(tab_set.locator(".tabbed-labels label")).to_have_text(["PyTorch", "Accelerate", "Lightning", "Trainer"])
    expect(_shown_code(tab_set)).to_have_count(1)
    expect(_shown_code(tab_set)).to_contain_text("loss.backward()")
    expect(_shown_code(tab_set)).not_to_contain_text("import lightning")

    click_when_settled(tab_set.locator(".tabbed-labels label", has_text="Lightning"), javascript=False)
    expect(_shown_code(tab_set)).to_have_count(1)
    expect(_shown_code(tab_set)).to_contain_text("import lightning as L")
    expect(_shown_code(tab_set)).to_contain_text("accumulate_grad_batches=N")
    tab_set.scroll_into_view_if_needed()
    screenshot(page, "guide-framework-tabs-no-js-en")


def test_the_chosen_framework_is_chosen_again_on_another_page(new_page, live_server, content):
    page = new_page()
    page.goto(f"{live_server.url}/en/guides/the-accumulation-loop/")
    first_set = page.locator("#guide-body .tabbed-set").first
    click_when_settled(first_set.locator(".tabbed-labels label", has_text="Lightning"))
    expect(_shown_code(first_set)).to_contain_text("import lightning as L")
    expect(_shown_code(page.locator("#guide-body .tabbed-set").nth(1))).to_contain_text("import lightning as L")
    cookie = next(c for c in page.context.cookies() if c["name"] == "framework")
    assert cookie["value"] == "Lightning" and cookie["sameSite"] == "Lax" and cookie["path"] == "/"

    page.goto(f"{live_server.url}/fr/guides/loss-normalization-variable-length/")
    tab_set = page.locator("#guide-body .tabbed-set").first
    expect(_shown_code(tab_set)).to_contain_text("import lightning as L")
    checked = tab_set.locator("input:checked")
    expect(tab_set.locator(f'label[for="{checked.get_attribute("id")}"]')).to_have_text("Lightning")
