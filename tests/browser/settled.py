"""Clicking something far down a long guide page once the page has stopped moving there.

Scrolling to it makes the browser lay out the blocks it skipped (`content-visibility: auto`) and
may start a font the skipped text uses; either can move what is clicked by a line or more. Playwright
checks that the press lands on the element, not the release (the hit-target interceptor in its
injected script checks the first mouse event only), so a move between the two loses the click
without an error: the page stays where it was and the test fails a step later."""

SETTLED_IN_PAGE = """async element => {
    const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
    let before = null;
    for (;;) {
        await frame();
        await frame();
        await document.fonts.ready;
        const box = JSON.stringify(element.getBoundingClientRect());
        if (box === before) return;
        before = box;
    }
}"""


def click_when_settled(locator, *, javascript: bool = True) -> None:
    """`javascript`: whether the page runs scripts (a context made with java_script_enabled=False
    runs no animation-frame or timer callback, so there the box is compared from here instead)."""
    locator.scroll_into_view_if_needed()
    if javascript:
        # Until it stays put: over two frames (the first lays out what the scroll brought near the
        # screen, the second what that made visible) and the fonts that started meanwhile.
        locator.evaluate(SETTLED_IN_PAGE)
    else:
        before = None
        while (box := locator.bounding_box()) != before:
            before = box
            locator.page.wait_for_timeout(100)  # a few frames; the loop ends only on two equal boxes
    locator.click()
