"""Code blocks in a guide: "Copy" puts the code on the clipboard and "Download as .py" saves it as
a file, both made in the page under the site's Content-Security-Policy (the `page` fixtures fail a
test on any console error, a CSP refusal included); without JavaScript the code is simply there."""

import pytest
from playwright.sync_api import expect

from tests.browser.settled import click_when_settled

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GUIDE = "the-accumulation-loop"
CLIPBOARD = ["clipboard-read", "clipboard-write"]


@pytest.fixture
def content(transactional_db):
    from course.services import guides_sync

    guides_sync()


def test_each_block_can_be_copied_and_python_downloaded_as_a_file(new_page, live_server, content, tmp_path, screenshot):
    page = new_page(permissions=CLIPBOARD)
    page.goto(f"{live_server.url}/en/guides/{GUIDE}/")
    blocks = page.locator("#guide-body .codehilite")
    count = blocks.count()
    assert count > 3
    expect(page.locator("#guide-body .code-tools")).to_have_count(count)
    expect(page.locator("#guide-body .code-tools a[download]")).to_have_count(count)  # every block here is Python

    first = blocks.nth(0)
    # textContent, as the page copies: innerText is empty for a block that `content-visibility: auto`
    # has not laid out yet (off screen, before the first frame).
    code = first.locator("pre code").text_content().rstrip("\n")
    copy = first.locator(".code-tools button")
    expect(copy).to_have_text("Copy")
    click_when_settled(copy)
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == code

    # A later block outside the framework tabs, whose hidden tabs' blocks count in the file names too.
    index = page.evaluate(
        """() => [...document.querySelectorAll('#guide-body .codehilite')]
            .findIndex((block, i) => i > 1 && !block.closest('.tabbed-set'))"""
    )
    third = blocks.nth(index)
    with page.expect_download() as download:
        click_when_settled(third.locator("a[download]"))
    assert download.value.suggested_filename == f"{GUIDE}-{index + 1}.py"
    saved = tmp_path / "block.py"
    download.value.save_as(saved)
    text = saved.read_text(encoding="utf-8")
    assert text == third.locator("pre code").text_content().rstrip("\n") + "\n"
    compile(text, saved.name, "exec")  # a Python file as it stands
    third.scroll_into_view_if_needed()
    screenshot(page, "guide-code-block-tools-en")


def test_a_plain_text_block_gets_copy_only(new_page, live_server, content):
    """Diagrams are fenced as plain text, which Pygments leaves uncoloured: no .py for them."""
    page = new_page()
    page.goto(f"{live_server.url}/en/guides/{GUIDE}/")
    tools = page.evaluate(
        """() => {
            const block = document.createElement('div');
            block.className = 'codehilite';
            block.innerHTML = '<pre><span></span><code>+---+\\n| N |\\n+---+\\n</code></pre>';
            document.getElementById('guide-body').appendChild(block);
            window.courseSite.enhance(block);
            return [...block.querySelectorAll('.code-tools > *')].map(e => e.tagName.toLowerCase());
        }"""
    )
    assert tools == ["button"]


def test_the_tools_speak_the_pages_language(new_page, live_server, content):
    page = new_page()
    page.goto(f"{live_server.url}/hi/guides/{GUIDE}/")
    tools = page.locator("#guide-body .code-tools").first
    expect(tools.locator("button")).to_have_text("कॉपी करें")
    expect(tools.locator("a")).to_have_text(".py फ़ाइल डाउनलोड करें")
    expect(tools.locator("a")).to_have_attribute("download", f"{GUIDE}-1.py")


def test_without_javascript_the_code_is_there_and_no_tool_is(browser, live_server, content):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/en/guides/{GUIDE}/")
    block = page.locator("#guide-body .codehilite").first
    block.scroll_into_view_if_needed()  # laid out, so that what is read is what a learner sees
    expect(block).to_be_visible()
    expect(block).to_contain_text("optimizer.zero_grad", use_inner_text=True)
    assert page.locator(".code-tools").count() == 0
    context.close()
