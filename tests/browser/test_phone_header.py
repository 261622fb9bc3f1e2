"""The header on a 360-pixel phone shows every link whole, in every language, signed in or out: no
link cut off (the French "Se connecter" and "Tableau de bord" once ran off the edge of a sideways
scrolling row with no sign that more was there), none over another, and no page scrolling sideways.
Screenshots: test-artifacts/screenshots/phone-header-<lang>-<who>.png."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
MAX_HEADER_PX = 100  # as tests/browser/test_phone_layout.py: a few short rows, not a screenful

# Each header link that is not shown whole: its text wider than its box, its box outside the window
# or outside an ancestor that clips (a row that scrolls sideways hides what is past its edge), or
# over another link.
HIDDEN_LINKS = """() => {
    const links = [...document.querySelectorAll('.site-header a')];
    const box = e => e.getBoundingClientRect();
    const problems = [];
    for (const link of links) {
        const name = link.textContent.trim(), r = box(link);
        if (link.scrollWidth > link.clientWidth) problems.push(`${name}: text wider than its box`);
        if (r.left < 0 || r.right > window.innerWidth + 0.5) problems.push(`${name}: past the window's edge`);
        for (let a = link.parentElement; a; a = a.parentElement) {
            const style = getComputedStyle(a), clip = box(a);
            if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
            const inside = r.left >= clip.left - 0.5 && r.right <= clip.right + 0.5
                && r.top >= clip.top - 0.5 && r.bottom <= clip.bottom + 0.5;
            if (!inside)
                problems.push(`${name}: clipped by ${a.tagName.toLowerCase()}.${a.className}`);
        }
    }
    links.forEach((one, i) => links.slice(i + 1).forEach(other => {
        const a = box(one), b = box(other);
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5)
            problems.push(`${one.textContent.trim()} over ${other.textContent.trim()}`);
    }));
    return problems;
}"""


# The last section of the header (log in, or the dashboard), the one that was cut off.
ACCOUNT_LINK = {("fr", False): "Se connecter", ("fr", True): "Tableau de bord", ("hi", False): "लॉग इन",
           ("hi", True): "डैशबोर्ड", ("en", False): "Log in", ("en", True): "Dashboard"}  # fmt: skip


@pytest.mark.parametrize("signed_in", [False, True], ids=["signed-out", "signed-in"])
@pytest.mark.parametrize("language", ["fr", "hi", "en"])
def test_every_header_link_is_whole_on_a_360_pixel_phone(
    new_page, live_server, learner, screenshot, language, signed_in
):
    page = new_page(user=learner if signed_in else None, **PHONE)
    page.goto(f"{live_server.url}/{language}/")
    page.evaluate("document.fonts.ready")
    screenshot(page, f"phone-header-{language}-{'signed-in' if signed_in else 'signed-out'}")
    assert ACCOUNT_LINK[language, signed_in] in page.locator(".site-header nav a").all_inner_texts()
    assert page.evaluate(HIDDEN_LINKS) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert page.locator(".site-header").bounding_box()["height"] <= MAX_HEADER_PX
