"""A learner takes the final exam in Hindi in Chromium, passes, downloads the PDF certificate and
opens the verification page from the link printed in it."""

import io
import unicodedata

import pypdf
import pytest
import yaml

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAME = "आशा क्षितिज वर्मा"
PASSWORD = "a-long-Passphrase-42"
OPTIONS = ["a", "b", "c", "d"]
STEPS = ["zero", "forward", "divide", "backward", "step"]


def _text(en: str, hi: str) -> dict[str, str]:
    return {"en": en, "hi": hi, "fr": f"FR {en}"}


def _question(i: int) -> dict:
    kind = ["single", "multiple", "numeric", "ordering"][i % 4]
    data = {
        "id": f"q-{i}",
        "type": kind,
        "prompt": _text(f"Question {i}?", f"प्रश्न {i}: सही उत्तर क्या है?"),
        "hint": _text("Think again.", "फिर से सोचिए।"),
        "explanation": _text(f"Because {i}.", f"क्योंकि {i}।"),
    }
    if kind in ("single", "multiple"):
        right = {"b"} if kind == "single" else {"a", "c"}
        data["options"] = [
            {"id": o, "correct": o in right, "text": _text(f"Option {o}", f"विकल्प {o}")} for o in OPTIONS
        ]
    elif kind == "numeric":
        data.update(answer=4 * i, tolerance=0)
    else:
        data["options"] = [{"id": s, "text": _text(f"Step {s}", f"क़दम {s}")} for s in STEPS]
    return data


@pytest.fixture
def exam(tmp_path, settings, live_server):
    from quizzes.services import quizzes_sync
    from tests.factories import account

    root = tmp_path / "content"
    (root / "final-exam").mkdir(parents=True)
    bank = {"title": _text("Final exam", "अंतिम परीक्षा"), "questions": [_question(i) for i in range(32)]}
    (root / "final-exam" / "quiz.yaml").write_text(yaml.safe_dump(bank, allow_unicode=True), encoding="utf-8")
    quizzes_sync(content_dir=root)
    settings.CERT_KEY_DIR = tmp_path / "keys"
    settings.SITE_URL = live_server.url  # so the link printed in the PDF leads back to this server
    account(full_name=NAME, password=PASSWORD, language="hi")


def _answer(page, section, question, shown: list[str]) -> None:
    """What a learner who knows the material does, using only the keyboard-friendly controls."""
    if question.type == "numeric":
        section.locator("input[name=value]").fill(f"{question.answer:g}")
    elif question.type == "ordering":
        for rank, option in enumerate(question.options, start=1):
            section.locator(f"select[name=rank-{shown.index(option['id']) + 1}]").select_option(str(rank))
    else:
        for option in question.options:
            if option["correct"]:
                section.locator(f"input[name=choice][value='{shown.index(option['id']) + 1}']").check()
    section.locator("button[type=submit]").press("Enter")


def test_taking_the_final_exam_in_hindi_and_verifying_the_certificate(page, live_server, exam, tmp_path, screenshot):
    from quizzes.models import Attempt, Question

    page.set_default_timeout(20_000)
    page.goto(f"{live_server.url}/hi/accounts/login/?next=/hi/quizzes/final-exam/")
    page.fill("input[name=username]", "asha")
    page.fill("input[name=password]", PASSWORD)
    page.locator("main button[type=submit]").click()
    page.wait_for_url("**/hi/quizzes/final-exam/")
    assert page.locator("h1").inner_text() == "अंतिम परीक्षा"

    page.locator("main form[action$='/start/'] button").click()
    page.wait_for_url("**/hi/quizzes/final-exam/attempts/**")
    attempt = Attempt.objects.get()
    assert attempt.language == "hi" and attempt.total == 15
    typo_shown = False
    for number, pk in enumerate(attempt.question_ids, start=1):
        section = page.locator(f"#q{number}")
        assert "प्रश्न" in section.inner_text()
        if not typo_shown and section.locator("input[name=value]").count():
            # A mistyped number is refused in place (400 swapped in by quizzes.js) and can be retyped.
            section.locator("input[name=value]").fill("चार")
            section.locator("button[type=submit]").press("Enter")
            page.locator(f"#q{number} .message-error").wait_for()
            typo_shown = True
            # Chromium logs that expected 400 as a console error; nothing else may be logged.
            page.problems.items = [p for p in page.problems.items if "status of 400" not in p]
        _answer(page, section, Question.objects.get(pk=pk), attempt.layout.get(str(pk), []))
        page.locator(f"#q{number} .feedback.correct").wait_for()  # instant feedback, swapped in by htmx
        # The exam's explanations wait until the learner has passed (its questions stay in the bank).
        assert "क्योंकि" not in page.locator(f"#q{number} .feedback").inner_text()
    assert typo_shown
    assert page.locator("#quiz-progress").inner_text().startswith("15")
    screenshot(page, "final-exam-hi-answered", full_page=True)

    page.locator("main form[action$='/finish/'] button").click()
    page.wait_for_url("**/result/")
    assert page.locator(".feedback.score.correct").is_visible()
    assert "क्योंकि" in page.locator("main").inner_text()  # passed: the review explains
    page.locator("main form[action$='/certificate/'] button").click()
    page.wait_for_url("**/hi/certificates/**")
    assert page.locator("h1").inner_text() == NAME
    screenshot(page, "certificate-hi", full_page=True)

    with page.expect_download() as download_info:
        page.locator("a[href$='certificate.pdf']").click()
    pdf_path = tmp_path / "certificate.pdf"
    download_info.value.save_as(pdf_path)
    assert download_info.value.suggested_filename.endswith(".pdf")
    reader = pypdf.PdfReader(io.BytesIO(pdf_path.read_bytes()))
    text = "".join(ch for ch in reader.pages[0].extract_text() if unicodedata.category(ch) != "Cc")
    assert NAME in text  # shaped clusters map back to the name (their extra glyphs are control codes)
    links = [annotation.get_object()["/A"]["/URI"] for annotation in reader.pages[0]["/Annots"]]
    assert links and all(link.startswith(f"{live_server.url}/hi/certificates/") for link in links)

    verification = page.context.new_page()
    verification.goto(links[0])
    assert verification.locator("h1").inner_text() == NAME
    assert verification.locator(".certificate-status.feedback.correct").is_visible()
    assert verification.locator("meta[property='og:title']").count() == 1
    verification.close()
