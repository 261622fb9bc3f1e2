"""Playwright driving Debian's Chromium (no browser download) against the live test server."""

import os
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

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
        page.on("console", lambda m: self.items.append(f"console: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: self.items.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: self.items.append(f"failed: {r.url} {r.failure}"))
        page.on("response", lambda r: self.items.append(f"HTTP {r.status}: {r.url}") if r.status >= 500 else None)


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.problems = PageProblems(page)
    yield page
    context.close()
    assert page.problems.items == []


@pytest.fixture
def phone_page(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.problems = PageProblems(page)
    yield page
    context.close()
    assert page.problems.items == []


@pytest.fixture
def screenshot():
    """Saves a screenshot under test-artifacts/screenshots/ (kept as a test artifact)."""

    def save(page, name: str, full_page: bool = False) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return save
