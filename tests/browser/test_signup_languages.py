"""Signing up in Hindi and in French, in Chromium: the sign-up page, as shown and after a refused
try, keeps no text of the English page (tests/english_left.py), and the account is created with a
user name and a certificate name in the learner's own script."""

import pytest
from django.contrib.auth.models import User

from tests.english_left import english_left

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a-long-Passphrase-42"
LEARNERS = {
    "hi": {"username": "आशा_वर्मा", "full_name": "आशा क्षितिज वर्मा"},
    "fr": {"username": "amélie.durand", "full_name": "Amélie Durand-Lefèvre"},
}
# What a reader sees or hears: the rendered text, and the attributes read out or shown on hover.
SHOWN_TEXT = """() => [
    ...document.body.innerText.split("\\n"),
    ...[...document.querySelectorAll("[placeholder], [aria-label], [title], img[alt]")].flatMap(
        (element) => ["placeholder", "aria-label", "title", "alt"].map((name) => element.getAttribute(name))
    ),
].map((text) => (text || "").replace(/\\s+/g, " ").trim()).filter(Boolean)"""


def shown_text(page) -> list[str]:
    return page.evaluate(SHOWN_TEXT)


def fill(page, username: str, full_name: str, password2: str = PASSWORD) -> None:
    page.fill("input[name=username]", username)
    page.fill("input[name=email]", "learner@example.com")
    page.fill("input[name=full_name]", full_name)
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", password2)
    with page.expect_navigation():  # the answer, refused (400) or not, is a new page
        page.locator("main form button[type=submit]").click()


def forget_the_refusal(page) -> None:
    """Chromium logs the refused form's 400 as a console error; nothing else may be logged."""
    refusals = [problem for problem in page.problems.items if "status of 400" in problem]
    assert len(refusals) == 1, page.problems.items
    page.problems.items.remove(refusals[0])


@pytest.mark.parametrize("language", ["hi", "fr"])
def test_signing_up_leaves_no_english_on_the_page_and_creates_the_account(
    new_page, live_server, fast_passwords, language
):
    learner = LEARNERS[language]
    page = new_page()
    page.goto(f"{live_server.url}/en/accounts/signup/")
    english = shown_text(page)
    fill(page, learner["username"], learner["full_name"], password2="not-the-same-42")
    assert page.locator("main .errorlist").count() > 0
    english += shown_text(page)  # the refusal's messages too
    forget_the_refusal(page)

    page.goto(f"{live_server.url}/{language}/accounts/signup/")
    assert page.locator("html").get_attribute("lang") == language
    assert english_left(english, shown_text(page), language) == []
    fill(page, learner["username"], learner["full_name"], password2="not-the-same-42")
    assert page.locator("main .errorlist").count() > 0
    assert english_left(english, shown_text(page), language) == []
    forget_the_refusal(page)
    assert not User.objects.exists()

    fill(page, learner["username"], learner["full_name"])
    page.wait_for_url(f"**/{language}/accounts/dashboard/")
    user = User.objects.get(username=learner["username"])
    assert user.profile.full_name == learner["full_name"] and user.profile.language == language
    assert learner["full_name"] in page.inner_text("h1")
