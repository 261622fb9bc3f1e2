"""The phone layout at 360 CSS pixels, in every language: a compact header, a table of contents
folded into one line until opened, figures and lab charts whose text is at least 11 px, and the
path's steps (home, its next step: this learner's certificate, guide 1, the course page). Screenshots go to
test-artifacts/screenshots/phone-<lang>-*."""

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
GUIDE = "the-accumulation-loop"  # its figures draw the forgot-divide-sgd reference main_pages stores
MIN_TEXT_PX = 11
MAX_HEADER_PX = 100

# The smallest text, in screen pixels, of every SVG figure: its font size in the drawing's units
# times the scale the drawing is shown at.
SMALLEST_FIGURE_TEXT = """() => [...document.querySelectorAll('.figure-scroll svg')].flatMap(svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    return [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
})"""


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_the_path_and_a_guide_on_a_360_pixel_phone(new_page, live_server, main_pages, screenshot, language):
    from course.models import GuidePage

    first = GuidePage.objects.filter(language=language).order_by("guide__order").first()
    page = new_page(user=main_pages.user, **PHONE)
    shot = lambda step: screenshot(page, f"phone-{language}-{step}")  # noqa: E731

    page.goto(f"{live_server.url}/{language}/")
    header = page.locator(".site-header")
    assert header.bounding_box()["height"] <= MAX_HEADER_PX  # two short rows, not a screenful
    expect(page.locator(".brand")).to_have_accessible_name(page.locator(".brand span").inner_text())
    shot("01-home")
    page.locator("main .hero a.button").first.click()  # this learner holds a certificate: the course is finished
    page.wait_for_url(f"**/{language}/certificates/*/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.goto(f"{live_server.url}/{language}/guides/{first.guide.slug}/")
    shot("02-guide-1")

    page.goto(f"{live_server.url}/{language}/course/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shot("03-course")

    page.goto(f"{live_server.url}/{language}/guides/{GUIDE}/?fig-forgot-divide-sgd-loss=all")  # shown, not asked
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert header.bounding_box()["height"] <= MAX_HEADER_PX
    toc = page.locator("nav.toc")
    details = toc.locator("details")
    expect(details).not_to_have_attribute("open", "")
    assert toc.bounding_box()["height"] < 60  # one line: "On this page"
    link = toc.locator("a[href='#deep-dive']")
    expect(link).to_be_hidden()
    toc.locator("summary").click()
    expect(link).to_be_visible()
    toc.scroll_into_view_if_needed()
    shot("04-table-of-contents-open")
    link.click()
    page.wait_for_function("location.hash === '#deep-dive'")

    sizes = page.evaluate(SMALLEST_FIGURE_TEXT)
    assert sizes, "the guide shows its figures"
    assert min(sizes) >= MIN_TEXT_PX
    figure = page.locator(".guide-figure").first
    figure.scroll_into_view_if_needed()
    shot("05-figure")
    box = page.locator(".figure-scroll").first
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")  # the drawing scrolls in its box...
    assert box.get_attribute("tabindex") == "0"  # ...which the keyboard can reach and scroll


def test_lab_chart_text_is_at_least_11_pixels_on_a_phone(new_page, live_server, main_pages, screenshot):
    page = new_page(user=main_pages.user, **PHONE)
    page.goto(f"{live_server.url}/en{main_pages.paths['lab run']}")
    sizes = page.evaluate(SMALLEST_FIGURE_TEXT)  # the run's curves, drawn on the server like the guides' figures
    assert sizes, "the run page shows its chart"
    assert min(sizes) >= MIN_TEXT_PX
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.locator("#lab-curves").scroll_into_view_if_needed()
    screenshot(page, "phone-en-lab-run-chart")


def test_on_a_wide_screen_the_table_of_contents_is_open_beside_the_text(page, live_server, course_site):
    page.goto(f"{live_server.url}/en/guides/{GUIDE}/")
    expect(page.locator("nav.toc details")).to_have_attribute("open", "")
    expect(page.locator("nav.toc a[href='#deep-dive']")).to_be_visible()
    toc, body = page.locator("nav.toc").bounding_box(), page.locator("#guide-body").bounding_box()
    assert toc["x"] + toc["width"] <= body["x"]  # beside it, not above


def test_without_javascript_the_folded_contents_still_open_and_lead_to_their_sections(
    browser, live_server, course_site
):
    context = browser.new_context(java_script_enabled=False, **PHONE)
    page = context.new_page()
    page.goto(f"{live_server.url}/en/guides/{GUIDE}/")
    page.locator("nav.toc summary").click()
    page.locator("nav.toc a[href='#faq']").click()
    page.wait_for_url("**#faq")
    context.close()
