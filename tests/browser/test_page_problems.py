"""The browser tests' own watchman (PageProblems in conftest.py): a request that fails while the page
stays counts; a poll cut short because the tab loaded another page does not. A small server of the
test's own holds the poll until the test ends, so the order is fixed whatever the machine's speed."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from .conftest import PageProblems

pytestmark = pytest.mark.browser


class HoldingServer(ThreadingHTTPServer):
    """Answers every path with a small page, except /held-poll, which it answers only at teardown,
    /slow-page, which it answers when the test sets `page_released`, and /page-requested, which says
    at once whether /slow-page has been asked for."""

    def __init__(self):
        self.released = threading.Event()
        self.page_requested = threading.Event()
        self.page_released = threading.Event()
        super().__init__(("127.0.0.1", 0), self.Handler)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/page-requested":
                self.reply(b"yes" if self.server.page_requested.is_set() else b"no")
                return
            if self.path == "/held-poll":
                self.server.released.wait(60)
            if self.path == "/slow-page":
                self.server.page_requested.set()
                self.server.page_released.wait(60)
            self.reply(b"<!doctype html><title>page</title><p>page</p>")

        def reply(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass


@pytest.fixture
def holding_server():
    server = HoldingServer()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.url = f"http://127.0.0.1:{server.server_port}"
    yield server
    server.released.set()
    server.page_released.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def watched(browser, holding_server):
    context = browser.new_context()
    page = context.new_page()
    problems = PageProblems(page)
    page.goto(f"{holding_server.url}/")
    yield page, problems
    context.close()


def test_a_request_that_fails_while_the_page_stays_is_a_problem(watched):
    page, problems = watched
    page.route("**/refused-poll", lambda route: route.abort("aborted"))
    with page.expect_event("requestfailed"):
        page.evaluate("fetch('/refused-poll').catch(() => null)")
    assert [item for item in problems.items if "refused-poll" in item and "ERR_ABORTED" in item], problems.items


def test_a_poll_cut_short_by_loading_another_page_is_not_a_problem(watched, holding_server):
    page, problems = watched
    with page.expect_request("**/held-poll"):
        page.evaluate("() => { fetch('/held-poll').catch(() => null); }")  # not awaited: it is still waiting
    with page.expect_event("requestfailed") as failed:
        page.goto(f"{holding_server.url}/other")
    assert failed.value.url.endswith("/held-poll") and failed.value.failure == "net::ERR_ABORTED"
    assert problems.items == []


def test_a_poll_sent_while_the_next_page_loads_is_not_a_problem(watched, holding_server):
    page, problems = watched
    # The old page starts loading the next one, waits until the server has its request, then polls.
    sent_after_the_load_began = """() => {
        location.href = '/slow-page';
        (async () => {
            while ((await (await fetch('/page-requested')).text()) !== 'yes') {
                await new Promise(resolve => setTimeout(resolve, 20));
            }
            fetch('/held-poll').catch(() => null);
        })();
    }"""
    with page.expect_request("**/held-poll"):
        page.evaluate(sent_after_the_load_began)
    with page.expect_event("requestfailed") as failed:
        holding_server.page_released.set()  # the next page replaces the old one, cutting the poll short
        page.wait_for_url("**/slow-page")
    assert failed.value.url.endswith("/held-poll") and failed.value.failure == "net::ERR_ABORTED"
    assert problems.items == []


def test_a_static_file_cut_short_is_not_a_problem_but_a_page_request_is(watched):
    """A script or stylesheet the browser cancels (the test moved on while it loaded) is like a font;
    the same failure of a request for a page or an API is still reported."""
    page, problems = watched
    page.route("**/static/vendor/held.js", lambda route: route.abort("aborted"))
    page.route("**/api/held", lambda route: route.abort("aborted"))
    for url in ("/static/vendor/held.js", "/api/held"):
        with page.expect_event("requestfailed"):
            page.evaluate("url => fetch(url).catch(() => null)", url)
    assert problems.items == [f"failed: {page.url.rstrip('/')}/api/held net::ERR_ABORTED"], problems.items
