"""The browser tests' own watchman (PageProblems in conftest.py): a request that fails while the page
stays counts; a poll cut short because the tab loaded another page does not. A small server of the
test's own holds the poll until the test ends, so the order is fixed whatever the machine's speed."""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from .conftest import PageProblems

pytestmark = pytest.mark.browser


@pytest.fixture
def holding_server():
    """Answers every path with a small page, except /held-poll, which it answers only at teardown."""
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/held-poll":
                release.wait(60)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.end_headers()
            self.wfile.write(b"<!doctype html><title>page</title><p>page</p>")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    release.set()
    server.shutdown()
    server.server_close()


@pytest.fixture
def watched(browser, holding_server):
    context = browser.new_context()
    page = context.new_page()
    problems = PageProblems(page)
    page.goto(f"{holding_server}/")
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
        page.goto(f"{holding_server}/other")
    assert failed.value.url.endswith("/held-poll") and failed.value.failure == "net::ERR_ABORTED"
    assert problems.items == []
