"""Accessibility in Chromium: axe-core on every main page in every language, in the light and the
dark colour scheme, and the quiz and the lab form completed with the keyboard alone."""

import re
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ("en", "hi", "fr")
AXE = Path(__file__).parent / "vendor" / "axe.min.js"  # axe-core, version in its first line
BLOCKING = ("serious", "critical")  # color-contrast is "serious"
SCHEMES = ("light", "dark")  # prefers-color-scheme: site.css switches its colours


def axe_violations(page) -> list[str]:
    """Serious and critical axe-core findings on the page as loaded, one line per rule."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8"))  # evaluate is not bound by the page's CSP
    violations = page.evaluate("() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at " + ", ".join(" ".join(n["target"]) for n in v["nodes"][:5])
        for v in violations
        if v["impact"] in BLOCKING
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_main_page_has_serious_accessibility_problems(new_page, live_server, main_pages, language):
    signed_in, signed_out = new_page(user=main_pages.user), new_page()
    found = {}
    for name, path, needs_login in main_pages.for_language(language):
        page = signed_in if needs_login else signed_out
        page.goto(live_server.url + path)
        assert page.locator("html").get_attribute("lang") == language
        backgrounds = set()
        for scheme in SCHEMES:  # the same page, its colours switched in place
            page.emulate_media(color_scheme=scheme)
            backgrounds.add(page.evaluate("getComputedStyle(document.documentElement).backgroundColor"))
            if problems := axe_violations(page):
                found[f"{name} ({scheme})"] = problems
        assert len(backgrounds) == len(SCHEMES), name  # the dark scheme did change the page
    assert found == {}


def test_every_guide_page_on_a_phone_has_targets_a_finger_can_hit(new_page, live_server, course_site):
    """axe's target-size rule, as Lighthouse runs it: on a phone, on the page as loaded (not
    scrolled), every guide in every language. Boxes the browser has not laid out yet keep a guessed
    height (content-visibility: auto), so a control under content taller than the guess would be
    drawn over what follows: the code blocks' copy and download buttons were."""
    from course.models import GuidePage

    # Lighthouse's phone (its mobile preset's screen emulation): the failure showed at this width only.
    page = new_page(viewport={"width": 412, "height": 823}, device_scale_factor=1.75, is_mobile=True, has_touch=True)
    found = {}
    for guide in GuidePage.objects.filter(guide__is_published=True).select_related("guide"):
        page.goto(f"{live_server.url}/{guide.language}/guides/{guide.guide.slug}/")
        page.evaluate(AXE.read_text(encoding="utf-8"))
        violations = page.evaluate(
            "() => axe.run(document, {runOnly: ['target-size'], resultTypes: ['violations']}).then(r => r.violations)"
        )
        if violations:
            found[str(guide)] = [" ".join(n["target"]) for v in violations for n in v["nodes"][:5]]
    assert found == {}


def tab_to(page, selector: str, limit: int = 150) -> None:
    """Presses Tab (as a keyboard user does) until the focused element matches `selector`."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} cannot be reached with the Tab key")


def choose_with_arrows(page, selector: str, value: str) -> None:
    """Focuses a select with Tab and moves to `value` with the arrow keys (no list is opened)."""
    tab_to(page, selector)
    options = page.eval_on_selector(selector, "s => [...s.options].map(o => o.value)")
    current = page.eval_on_selector(selector, "s => s.value")
    steps = options.index(value) - options.index(current)
    for _ in range(abs(steps)):
        page.keyboard.press("ArrowDown" if steps > 0 else "ArrowUp")
    assert page.eval_on_selector(selector, "s => s.value") == value


def answer_with_keyboard(page, number: int, answer: dict) -> None:
    """Answers question `number` with Tab, Space, arrow keys and typing, then submits with Enter."""
    form = f"#q{number} form"
    if "value" in answer:
        tab_to(page, f"{form} input[name=value]")
        page.keyboard.type(answer["value"])
    elif "choice" in answer and page.locator(f"{form} input[type=radio]").count():
        tab_to(page, f"{form} input[type=radio]")  # Tab enters the group on its first radio
        first = int(page.evaluate("document.activeElement.value"))
        wanted = int(answer["choice"][0])
        if wanted == first:
            page.keyboard.press("Space")  # focusing a radio does not choose it
        for _ in range(wanted - first):
            page.keyboard.press("ArrowDown")  # arrows move the choice within the group
    elif "choice" in answer:
        for position in answer["choice"]:
            tab_to(page, f"{form} input[type=checkbox][value='{position}']")
            page.keyboard.press("Space")
    else:
        # Ordering: place the steps in their order one after the other; taking a place swaps.
        for field, rank in sorted(answer.items(), key=lambda item: int(item[1])):
            choose_with_arrows(page, f"{form} select[name='{field}']", rank)
    checked = page.eval_on_selector_all(f"{form} input:checked", "inputs => inputs.map(i => i.value)")
    if "choice" in answer:
        assert sorted(checked) == sorted(answer["choice"])
    tab_to(page, f"{form} button[type=submit]")
    page.keyboard.press("Enter")
    page.locator(f"#q{number} .feedback.correct").wait_for()


def test_a_quiz_with_every_question_type_can_be_completed_with_the_keyboard_alone(
    page, live_server, course_site, helpers
):
    from quizzes.models import Attempt, Question

    page.goto(f"{live_server.url}/en/quizzes/the-accumulation-loop/")
    tab_to(page, "main form[action$='/start/'] button")
    page.keyboard.press("Enter")
    page.wait_for_url("**/attempts/**")
    attempt = Attempt.objects.get()
    types = {Question.objects.get(pk=pk).type for pk in attempt.question_ids}
    assert types == {"single", "multiple", "numeric", "ordering", "spot_bug"}
    for number in range(1, attempt.total + 1):
        answer_with_keyboard(page, number, helpers.correct_answer(attempt, number))
    tab_to(page, "main form[action$='/finish/'] button")
    page.keyboard.press("Enter")
    page.wait_for_url("**/result/")
    attempt.refresh_from_db()
    assert attempt.correct_count == attempt.total
    assert page.locator(".feedback.score.correct").is_visible()


@pytest.fixture
def unconsumed_queue():
    """No worker runs in this test: drop the queued message so no later test's worker gets it."""
    yield
    from config.celery import app

    app.control.purge()


def test_the_lab_form_can_be_completed_with_the_keyboard_alone(new_page, live_server, learner, unconsumed_queue):
    from labs.models import LabRun

    page = new_page(user=learner)
    page.goto(f"{live_server.url}/en/labs/")
    choose_with_arrows(page, "#id_task", "digits-mlp")
    choose_with_arrows(page, "#id_norm", "layer")
    tab_to(page, "#id_effective_batch_size")
    page.keyboard.press("ArrowDown")  # number fields step with the arrow keys: 64 -> 63
    page.keyboard.press("ArrowUp")
    tab_to(page, "#id_accumulation_steps")
    page.keyboard.press("ArrowUp")  # 4 -> 5 does not divide 64: the form says so
    choose_with_arrows(page, "#id_loss_scaling", "sum")
    tab_to(page, "#id_steps")
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    tab_to(page, "main form.lab-form button[type=submit]")
    page.keyboard.press("Enter")
    page.locator(".lab-field:has(#id_accumulation_steps) .errorlist").wait_for()
    page.problems.items = [p for p in page.problems.items if "status of 400" not in p]  # the refusal itself
    assert LabRun.objects.count() == 0

    tab_to(page, "#id_accumulation_steps")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")  # 5 -> 2
    tab_to(page, "main form.lab-form button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/en/labs/runs/\d+/$"))
    run = LabRun.objects.get()
    assert (run.config["task"], run.config["norm"], run.config["accumulation_steps"]) == ("digits-mlp", "layer", 2)
    assert (run.config["loss_scaling"], run.config["steps"], run.config["effective_batch_size"]) == ("sum", 3, 64)
