"""Script payloads put where authors and learners control text never run in Chromium.

Payloads go into Markdown content (a guide and its quiz synced from a temporary CONTENT_DIR) and
into every form field a learner controls; the pages showing them are loaded in Chromium with the
Content-Security-Policy bypassed, so that escaping alone is what is tested (the policy is a second
wall). No dialog may open and no injected element, handler or javascript: link may exist, while
the payload shows up as plain text where the page echoes it.
"""

from urllib.parse import quote

import pytest
import yaml
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# At most 60 characters each (the API token name's limit) and at most nine of them (the
# newsletter allows ten sign-ups an hour from one address).
PAYLOADS = [
    '<script>alert("xss-script")</script>',
    '"><img src=x class=xss-injected onerror=alert(2)>',
    "'><svg class=xss-injected onload=alert(3)>",
    "<a class=xss-injected href=javascript:alert(4)>a</a>",
    "</title></textarea><b class=xss-injected onclick=alert(5)>",
    '" autofocus onfocus="alert(6)',
    "javascript:alert(7)",
    "{{ request }}{% debug %}<iframe class=xss-injected></iframe>",
]
MARKDOWN_PAYLOADS = [
    "<img src=x class=xss-injected onerror=alert('md-img')>",
    "[a link](javascript:alert('md-link')) and [another](JaVaScRiPt:alert(1))",
    "![picture](x\" onerror=\"alert('md-picture'))",
    "<div class=xss-injected onclick=alert('md-div')>raw block</div>",
    "<a href=\"javascript:alert('md-a')\" class=xss-injected>raw link</a>",
    "<iframe srcdoc=\"<script>parent.alert('md-iframe')</script>\"></iframe>",
    "<style>body { display: none }</style><object data=\"javascript:alert('md-object')\"></object>",
    'A paragraph with attributes.\n{: onclick="alert(\'md-attr\')" class="xss-injected" }',
    "\\(\\href{javascript:alert('md-math')}{click} \\url{javascript:alert(1)}\\)",
]
INERT = """markedToo => {
    const found = [];
    for (const el of document.querySelectorAll('*')) {
        for (const attr of el.attributes) {
            if (attr.name.startsWith('on')) found.push(`${el.tagName} ${attr.name}=${attr.value}`);
            const isUrl = ['href', 'src', 'action', 'formaction', 'data'].includes(attr.name);
            if (isUrl && /^\\s*javascript:/i.test(attr.value)) found.push(`${el.tagName} ${attr.name}=${attr.value}`);
        }
    }
    document.querySelectorAll('iframe, object, embed, frame, script:not([src])' + (markedToo ? ', .xss-injected' : ''))
        .forEach(el => found.push(el.outerHTML.slice(0, 120)));
    return found;
}"""


def assert_inert(page, where: str, markdown: bool = False) -> None:
    """No dialog, handler, javascript: link or active element. Markdown may carry harmless
    structural HTML by design (a <b class=...> survives sanitizing), so there the marker class
    is allowed; in text a learner typed it is not."""
    assert page.dialogs == [], f"{where}: a dialog opened"
    assert page.evaluate(INERT, not markdown) == [], f"{where}: injected markup"


@pytest.fixture
def xss_page(new_page):
    """A page that records dialogs and ignores the Content-Security-Policy. `htmx=False` blocks
    htmx, so that forms post as they do without JavaScript while the page still runs scripts."""

    pages = []

    def make(user=None, htmx: bool = True):
        page = new_page(user=user, bypass_csp=True)
        pages.append(page)
        page.dialogs = []
        page.on("dialog", lambda dialog: (page.dialogs.append(dialog.message), dialog.dismiss()))
        if not htmx:
            page.route("**/htmx.min.js", lambda route: route.fulfill(content_type="text/javascript", body=""))
        return page

    yield make
    for page in pages:  # the refused payloads answer 400, which Chromium logs as a console error
        page.problems.items = [p for p in page.problems.items if "status of 400" not in p]


def _heading_block(payload: str) -> str:
    return "\n".join(
        [
            "## Overview {#overview}",
            "\n\n".join(MARKDOWN_PAYLOADS),
            "## Deep dive {#deep-dive}",
            f"### {payload} {{#payload-heading}}",
            f"| payload | raw |\n|---|---|\n| {PAYLOADS[1]} | <img src=x onerror=alert('md-cell')> |",
            f"```python\nprint('{PAYLOADS[0]}')\n```",
            "A footnote.[^1]\n\n[^1]: " + PAYLOADS[3],
            "## Technical overview {#technical-overview}\n\nText.",
            "## Real-world uses {#real-world-uses}\n\nText.",
            "## The future {#future}\n\nText.",
            "## Putting it into practice {#putting-it-into-practice}",
            "### Why it matters {#why-it-matters}\n\nText.",
            "### Keep in mind {#keep-in-mind}\n\nText.",
            "### Next steps {#next-steps}\n\nText.",
            "## FAQ {#faq}",
            *(f"### {p}? {{#faq-{n}}}\n\n{p}" for n, p in enumerate(PAYLOADS[:4], start=1)),
            "## Exercises {#exercises}",
            *(_exercise(n, p) for n, p in enumerate(PAYLOADS[5:7], start=1)),
        ]
    )


def _exercise(number: int, payload: str) -> str:
    """An exercise whose task, summary and solution carry payloads, linking the preset in every language."""
    links = " ".join(f"[lab](/{lang}/labs/presets/memory-vs-n/)" for lang in ("en", "hi", "fr"))
    solution = f"{payload}\n\n{MARKDOWN_PAYLOADS[0]}\n\n<details open ontoggle=\"alert('md-details')\">x</details>"
    return (
        f"### {payload} {{#exercise-{number}}}\n\n{payload} {links}\n\n"
        f'<details markdown="1">\n<summary>{PAYLOADS[0]}</summary>\n\n{solution}\n\n</details>'
    )


def _same_everywhere(text: str) -> dict[str, str]:
    return {"en": text, "hi": text, "fr": text}


def write_payload_content(root) -> None:
    """A guide and its quiz whose every author-controlled text carries a payload."""
    folder = root / "guides" / "xss-guide"
    folder.mkdir(parents=True)
    meta = {
        "order": 1,
        "title": f"XSS {PAYLOADS[0]}",
        "summary": PAYLOADS[1],
        "lab_preset": "memory-vs-n",
        "lab_try": PAYLOADS[2],
        "related": [],
        "prerequisites": [{"text": PAYLOADS[3], "url": 'https://example.org/"onmouseover="alert(8)'}],
        "objectives": {"first": PAYLOADS[0], "second": PAYLOADS[1], "third": PAYLOADS[4]},
    }
    for language in ("en", "hi", "fr"):
        front = yaml.safe_dump(meta, allow_unicode=True)
        (folder / f"{language}.md").write_text(f"---\n{front}---\n\n{_heading_block(PAYLOADS[4])}\n", encoding="utf-8")
        # The spoken summary is only heard, never shown; it must just be long enough (about 2 minutes).
        (folder / f"summary.{language}.txt").write_text(
            f"{PAYLOADS[0]} " + "A spoken summary. " * 100, encoding="utf-8"
        )
    texts = [_same_everywhere(f"{p} and `{p}`") for p in PAYLOADS]
    options = [{"id": f"o-{n}", "text": texts[n], "correct": n == 0} for n in range(3)]
    objective = ("first", "second", "third", "first", "second")
    common = lambda n: {  # noqa: E731
        "prompt": texts[n],
        "hint": texts[n + 1],
        "explanation": texts[n + 2],
        "objective": objective[n],
    }
    quiz = {
        "title": _same_everywhere(PAYLOADS[5]),
        "questions": [
            {"id": "single", "type": "single", "options": options, **common(0)},
            {"id": "multiple", "type": "multiple", "options": options, **common(1)},
            {"id": "number", "type": "numeric", "answer": 4, "tolerance": 0, **common(2)},
            {
                "id": "order",
                "type": "ordering",
                "options": [{k: o[k] for k in ("id", "text")} for o in options],
                **common(3),
            },
            {"id": "single-again", "type": "single", "options": options, **common(4)},
        ],
    }
    (folder / "quiz.yaml").write_text(yaml.safe_dump(quiz, allow_unicode=True), encoding="utf-8")


def test_payloads_in_markdown_guides_and_quizzes_show_as_text_and_never_run(
    xss_page, live_server, settings, tmp_path, helpers
):
    from course.services import guides_sync
    from quizzes.models import Attempt
    from quizzes.services import quizzes_sync

    write_payload_content(tmp_path / "content")
    settings.CONTENT_DIR = tmp_path / "content"
    guides_sync()
    quizzes_sync()
    page = xss_page()
    for language in ("en", "hi", "fr"):
        page.goto(f"{live_server.url}/{language}/guides/xss-guide/")
        assert page.locator("h1").inner_text() == f"XSS {PAYLOADS[0]}"  # escaped, shown as written
        expect(page.locator("#try-it")).to_contain_text(PAYLOADS[2])
        expect(page.locator(".guide-start")).to_contain_text(PAYLOADS[3])  # a prerequisite, as text
        expect(page.locator("#objective-third")).to_have_text(PAYLOADS[4])
        assert page.locator("#payload-heading, #faq-4").count() == 2
        # latex2mathml knows no \url, so the formula stays TeX, shown as text: its \href makes no link.
        expect(page.locator(".arithmatex").first).to_contain_text("\\href{javascript:alert('md-math')}")
        assert page.locator(".arithmatex a, .arithmatex [href]").count() == 0
        assert_inert(page, f"guide in {language}", markdown=True)
    for path in ("/en/", "/en/guides/", "/en/search/?q=alert", "/en/quizzes/"):
        page.goto(live_server.url + path)
        assert_inert(page, path)
    expect(page.locator("main")).to_contain_text(PAYLOADS[5])  # the quiz title on the quiz index

    page.goto(f"{live_server.url}/en/quizzes/xss-guide/")
    page.locator("main form[action$='/start/'] button").click()
    page.wait_for_url("**/attempts/**")
    assert_inert(page, "quiz attempt")
    attempt = Attempt.objects.get()
    for number in range(1, attempt.total + 1):  # wrong answers: the hints and explanations show too
        section = page.locator(f"#q{number}")
        answer = helpers.wrong_answer(attempt, number)
        if "value" in answer:
            section.locator("input[name=value]").fill(answer["value"])
        elif "choice" in answer:
            section.locator(f"input[name=choice][value='{answer['choice'][0]}']").check()
        else:
            for field, rank in sorted(answer.items(), key=lambda item: int(item[1])):
                section.locator(f"select[name='{field}']").select_option(rank)
        section.locator("button[type=submit]").click()
        page.locator(f"#q{number} .feedback.wrong").wait_for()
    assert_inert(page, "quiz feedback")
    page.locator("main form[action$='/finish/'] button").click()
    page.wait_for_url("**/result/")
    assert_inert(page, "quiz review")


def test_payloads_in_account_certificate_and_token_forms_never_run(xss_page, live_server, course_site, helpers):
    from django.contrib.auth.models import User

    # Sign-up: a username the validators refuse comes back in its field, as text.
    visitor = xss_page()
    visitor.goto(f"{live_server.url}/en/accounts/signup/")
    visitor.fill("input[name=username]", PAYLOADS[1])
    visitor.fill("input[name=email]", "xss@example.com")
    visitor.fill("input[name=full_name]", PAYLOADS[0])
    visitor.fill("input[name=password1]", "a-long-Passphrase-42")
    visitor.fill("input[name=password2]", "a-long-Passphrase-42")
    visitor.locator("main form button[type=submit]").click()
    visitor.wait_for_load_state()
    assert_inert(visitor, "refused sign-up")
    assert visitor.input_value("input[name=username]") == PAYLOADS[1]
    assert visitor.input_value("input[name=full_name]") == PAYLOADS[0]
    visitor.fill("input[name=username]", "xss-learner")
    visitor.fill("input[name=password1]", "a-long-Passphrase-42")
    visitor.fill("input[name=password2]", "a-long-Passphrase-42")
    visitor.locator("main form button[type=submit]").click()
    visitor.wait_for_url("**/accounts/dashboard/")
    expect(visitor.locator("h1")).to_contain_text(PAYLOADS[0])
    assert_inert(visitor, "dashboard after sign-up")

    # The profile name, shown on the dashboard.
    for payload in PAYLOADS:
        visitor.goto(f"{live_server.url}/en/accounts/profile/")
        visitor.fill("input[name=full_name]", payload)
        visitor.locator("main form button[type=submit]").click()
        visitor.wait_for_url("**/accounts/dashboard/")
        expect(visitor.locator("main p.muted strong")).to_have_text(payload.strip())
        assert_inert(visitor, f"dashboard with the name {payload!r}")

    # The certificate carries the profile name: its page, its verification page, its correction.
    name = f"{PAYLOADS[1]} {PAYLOADS[2]}"
    visitor.goto(f"{live_server.url}/en/accounts/profile/")
    visitor.fill("input[name=full_name]", name)
    visitor.locator("main form button[type=submit]").click()
    visitor.wait_for_url("**/accounts/dashboard/")
    attempt = helpers.pass_exam(User.objects.get(username="xss-learner"))
    visitor.goto(f"{live_server.url}/en/quizzes/final-exam/attempts/{attempt.key}/result/")
    assert_inert(visitor, "exam result with the claim form")
    visitor.locator("main form[action$='/certificate/'] button").click()
    visitor.wait_for_url("**/en/certificates/**")
    assert visitor.locator("h1").inner_text() == name
    assert name in visitor.locator("meta[property='og:title']").get_attribute("content")
    assert_inert(visitor, "certificate page of its owner")
    stranger = xss_page()
    stranger.goto(visitor.url)
    assert stranger.locator("h1").inner_text() == name
    assert_inert(stranger, "verification page")
    old_url = visitor.url
    visitor.locator("a[href$='/correct-name/']").click()
    visitor.fill("input[name=full_name]", f"{PAYLOADS[3]} {PAYLOADS[4]}")
    visitor.locator("main form button[type=submit]").click()
    visitor.wait_for_url(lambda url: "/certificates/" in url and url != old_url and "correct-name" not in url)
    assert_inert(visitor, "reissued certificate")
    stranger.goto(old_url)
    expect(stranger.locator(".certificate-status")).to_have_class("feedback wrong certificate-status")
    assert_inert(stranger, "superseded certificate")

    # API token names: the page with the new token, then the list on the dashboard.
    for payload in PAYLOADS:
        visitor.goto(f"{live_server.url}/en/accounts/dashboard/")
        visitor.fill("#id_name", payload)
        visitor.locator("form[action$='/tokens/'] button").click()
        visitor.wait_for_url("**/accounts/tokens/")
        assert_inert(visitor, f"new token named {payload!r}")
    visitor.goto(f"{live_server.url}/en/accounts/dashboard/")
    tokens = visitor.locator("#api-tokens")
    for payload in PAYLOADS:
        expect(tokens).to_contain_text(payload)
    assert_inert(visitor, "dashboard listing the tokens")


def test_payloads_in_search_newsletter_quiz_and_lab_forms_never_run(
    xss_page, live_server, course_site, learner, settings, helpers
):
    from quizzes.models import Attempt, Question

    # This test sends many refused answers in a few seconds.
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "quiz_answer": "1000/m"}
    page, plain = xss_page(), xss_page(htmx=False)

    # Search: the query is echoed in the box and in the result line, with and without htmx.
    for payload in PAYLOADS:
        page.goto(f"{live_server.url}/en/search/?q={quote(payload)}")
        assert page.input_value("#q") == payload
        expect(page.locator("#search-results")).to_contain_text(payload.strip())
        assert_inert(page, f"search for {payload!r}")
    page.goto(f"{live_server.url}/en/search/")
    for payload in PAYLOADS:
        with page.expect_response(lambda response: "/search/?q=" in response.url):
            page.fill("#q", payload)
        expect(page.locator("#search-results")).to_contain_text(payload.strip())
        assert_inert(page, f"live search for {payload!r}")

    # Newsletter: a refused address comes back in its field (posted as without JavaScript).
    for payload in [*PAYLOADS, f'"{PAYLOADS[2]}"@example.com']:
        plain.goto(f"{live_server.url}/en/")
        plain.locator("#newsletter form").evaluate("form => form.noValidate = true")
        plain.fill("#id_newsletter_email", payload)
        plain.locator("#newsletter form button").click()
        plain.wait_for_url("**/newsletter/")
        assert_inert(plain, f"newsletter with {payload!r}")

    # Quiz numeric answers, refused in place by htmx and on a full page without it.
    for current in (page, plain):
        current.goto(f"{live_server.url}/en/quizzes/the-accumulation-loop/")
        current.locator("main form[action$='/start/'] button").click()
        current.wait_for_url("**/attempts/**")
        attempt = Attempt.objects.filter(quiz__slug="the-accumulation-loop").latest("started_at")
        types = [Question.objects.get(pk=pk).type for pk in attempt.question_ids]
        number = types.index("numeric") + 1
        for payload in PAYLOADS:
            current.fill(f"#q{number} input[name=value]", payload)
            current.locator(f"#q{number} button[type=submit]").click()
            current.locator(f"#q{number} .message-error").wait_for()
            assert_inert(current, f"numeric answer {payload!r}")

    # The lab form: every field, selects included, carries a payload (posted without htmx).
    lab = xss_page(user=learner, htmx=False)
    fields = ["task", "norm", "effective_batch_size", "accumulation_steps", "loss_scaling", "optimizer",
              "learning_rate", "steps", "seed", "grad_clip"]  # fmt: skip
    for shift in range(2):
        lab.goto(f"{live_server.url}/en/labs/")
        for index, field in enumerate(fields):
            payload = PAYLOADS[(index + shift) % len(PAYLOADS)]
            lab.locator(f"#id_{field}").evaluate(
                """(field, payload) => {
                    if (field.tagName === 'SELECT') { field.add(new Option(payload, payload)); field.value = payload; }
                    else { field.type = 'text'; field.value = payload; }
                }""",
                payload,
            )
        lab.locator("main form.lab-form button[type=submit]").click()
        lab.wait_for_url("**/labs/runs/")
        expect(lab.locator("main .errorlist").first).to_be_visible()
        expect(lab.locator("main")).to_contain_text(PAYLOADS[shift % len(PAYLOADS)])  # echoed as text
        assert_inert(lab, f"lab form, round {shift + 1}")
