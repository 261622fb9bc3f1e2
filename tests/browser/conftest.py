"""Playwright driving Debian's Chromium (no browser download) against the live test server."""

import os
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from playwright.sync_api import sync_playwright

from tests import factories

# Playwright's sync API runs an event loop in this thread; Django's ORM calls from the test body
# are still synchronous and safe here.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class PageProblems:
    """Console errors and failed requests seen by a page; a browser test fails on any of them."""

    def __init__(self, page) -> None:
        self.items: list[str] = []
        # The tab's history as numbered events: each main-frame commit (a new document in the tab) and
        # each start of a main-frame page load; each request remembers the commit it started after.
        self.events = 0
        self.last_commit = 0
        self.last_page_load = 0
        self.document_of: dict = {}
        page.on("console", lambda m: self.items.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.items.append(f"page error: {e}"))
        page.on("framenavigated", self._committed)
        page.on("request", self._started)
        page.on("requestfailed", self._failed)
        page.on("response", lambda r: self.items.append(f"HTTP {r.status}: {r.url}") if r.status >= 500 else None)

    def _next(self) -> int:
        self.events += 1
        return self.events

    def _committed(self, frame) -> None:
        if frame.parent_frame is None:
            self.last_commit = self._next()

    def _started(self, request) -> None:
        self.document_of[request] = self.last_commit
        if request.is_navigation_request() and request.frame.parent_frame is None:
            self.last_page_load = self._next()

    def _failed(self, request) -> None:
        if request.failure == "net::ERR_ABORTED" and self._cut_short(request):
            return
        self.items.append(f"failed: {request.url} {request.failure}")

    def _cut_short(self, request) -> bool:
        # A favicon, font, audio or static file (a deferred script such as the charts') still loading
        # when the test moves on to the next page is cancelled by the browser (ERR_ABORTED); a missing
        # file shows as a console error instead. (Seen once in 8 journeys under load: the preset page's
        # chart script, when the test sends the page's run form at once.)
        passive = (
            request.resource_type in ("image", "font", "media")
            or "favicon" in request.url
            or urlsplit(request.url).path.startswith(settings.STATIC_URL)
        )
        # So is an htmx poll of a page the tab has started to leave: sent before the next page's load
        # began, or after it began but before that page replaced this one (a slow server widens that
        # gap). When that happens depends on the machine's speed, and the page that sent it is gone.
        left_behind = self.last_page_load > self.document_of.get(request, self.last_commit)
        return passive or left_behind


@pytest.fixture
def page(browser):
    context = browser.new_context(service_workers="block", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.problems = PageProblems(page)
    yield page
    problems = list(page.problems.items)  # requests cut short by closing the page do not count
    context.close()
    assert problems == []


@pytest.fixture
def phone_page(browser):
    context = browser.new_context(
        service_workers="block", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    page = context.new_page()
    page.problems = PageProblems(page)
    yield page
    problems = list(page.problems.items)  # requests cut short by closing the page do not count
    context.close()
    assert problems == []


@pytest.fixture
def screenshot():
    """Saves a screenshot under test-artifacts/screenshots/ (kept as a test artifact)."""

    def save(page, name: str, full_page: bool = False) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        # A bound, not a timing: a full-page shot of a long guide took over 20 s (the journey's
        # default) on a 2-core machine with both cores busy; the screenshot is an artifact.
        page.screenshot(path=str(path), full_page=full_page, timeout=180_000)
        return path

    return save


# Shared by the journey, accessibility, phone-width, HTML and XSS tests -----------------------------

GUIDE = "the-accumulation-loop"  # its quiz has every question type, its preset is a two-run sweep


@pytest.fixture
def fast_passwords(settings):
    """Proper password hashing costs a good part of a second per sign-up or log-in."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def course_site(db, settings, tmp_path, fast_passwords):
    """The real guides and quizzes from content/, with certificates signed by throw-away keys."""
    from course.services import guides_sync
    from quizzes.services import quizzes_sync

    settings.CERT_KEY_DIR = tmp_path / "keys"
    guides_sync()
    quizzes_sync()


@pytest.fixture
def helpers():
    """The builders of tests/factories.py, by the names these tests know them."""
    from types import SimpleNamespace

    return SimpleNamespace(
        correct_answer=factories.correct_answer,
        wrong_answer=factories.wrong_answer,
        answer=factories.answer_through_services,
        pass_exam=factories.exam_taken_and_passed,
        finished_run=factories.finished_run,
    )


class MainPages:
    """Every main page of the site, with real data behind it, by name -> path after /<language>."""

    SIGNED_OUT = ("login", "signup")

    def __init__(self, user, paths: dict[str, str]) -> None:
        self.user, self.paths = user, paths

    def for_language(self, language: str) -> list[tuple[str, str, bool]]:
        """(name, path, signed in?) for each page in `language`."""
        return [(name, f"/{language}{path}", name not in self.SIGNED_OUT) for name, path in self.paths.items()]


@pytest.fixture
def main_pages(course_site, learner) -> MainPages:
    """A learner with a quiz under way, a finished quiz, a certificate and lab runs to show."""
    from certificates.services import certificate_issue
    from labs.presets import PRESETS
    from labs.reference import reference_sweep_submit
    from quizzes.models import Attempt, Quiz
    from quizzes.services import attempt_finish, attempt_start

    quiz = Quiz.objects.get(slug=GUIDE)
    owned = Attempt.objects.filter(user=learner)
    finished = attempt_start(quiz=quiz, user=learner, owned=owned, language="en")
    factories.answer_through_services(finished, 1, factories.correct_answer(finished, 1))
    factories.answer_through_services(finished, 2, factories.wrong_answer(finished, 2))
    attempt_finish(attempt=finished)
    ongoing = attempt_start(quiz=quiz, user=learner, owned=owned, language="en")
    factories.answer_through_services(ongoing, 1, factories.correct_answer(ongoing, 1))
    # the hint shows after a wrong answer
    factories.answer_through_services(ongoing, 2, factories.wrong_answer(ongoing, 2))
    certificate = certificate_issue(attempt=factories.exam_taken_and_passed(learner), user=learner)

    preset = PRESETS["forgot-divide-sgd"]
    preset_runs = [
        factories.finished_run(learner, config, preset=preset.slug, index=i, loss=2.0 + i)
        for i, (_label, config) in enumerate(preset.configs())
    ]
    reference_sweep_submit(preset=preset)  # the site's reference (reusing those results): figures and preset page
    own_run = factories.finished_run(learner, {**preset.configs()[0][1], "steps": 5, "seed": 7})
    compare = "&".join(f"run={run.share_ref}" for run in [*preset_runs, own_run])
    return MainPages(
        learner,
        {
            "home": "/",
            "guide index": "/guides/",
            "course page": "/course/",
            "guide": f"/guides/{GUIDE}/",
            "search": "/search/?q=zero_grad",
            "quiz index": "/quizzes/",
            "quiz": f"/quizzes/{GUIDE}/",
            "quiz attempt": f"/quizzes/{GUIDE}/attempts/{ongoing.key}/",
            "quiz result": f"/quizzes/{GUIDE}/attempts/{finished.key}/result/",
            "final exam": "/quizzes/final-exam/",
            "certificate verification": f"/certificates/{certificate.display_id}/",
            "certificate check": "/certificates/verify/",
            "labs index": "/labs/",
            "lab preset": f"/labs/presets/{preset.slug}/",
            "lab run": f"/labs/runs/{own_run.pk}/",
            "compare runs": f"/labs/compare/?{compare}",
            "dashboard": "/accounts/dashboard/",
            "login": "/accounts/login/",
            "signup": "/accounts/signup/",
        },
    )


@pytest.fixture
def new_page(browser, live_server):
    """Pages in fresh browser contexts: `new_page(user=..., phone=True)`. Each fails the test on a
    console error or failed request, like `page`. The site's service worker is blocked unless a test
    asks for it (`service_workers="allow"`, tests/browser/test_offline.py): once it controls a page,
    the requests it makes itself are out of Playwright's reach (page.route, the request events)."""
    from django.test import Client

    contexts = []

    def make(user=None, phone: bool = False, **options):
        if phone:
            options.update(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        options = {"viewport": {"width": 1280, "height": 900}, "service_workers": "block", **options}
        context = browser.new_context(**options)
        if user is not None:
            client = Client()
            client.force_login(user)
            cookie = client.cookies["sessionid"].value
            context.add_cookies([{"name": "sessionid", "value": cookie, "url": live_server.url}])
        page = context.new_page()
        page.problems = PageProblems(page)
        contexts.append((context, page))
        return page

    yield make
    problems = [p for _context, page in contexts for p in page.problems.items]
    for context, _page in contexts:
        context.close()
    assert problems == []
