"""Looking a certificate up by its ID in Chromium: with JavaScript off, the plain GET form leads to the
certificate's page, to the form again with what is wrong, or to the page that says no certificate with
that ID was ever issued; with it on, those pages have no serious accessibility findings."""

from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
NEVER_ISSUED = "abcd efgh ijkl mnop qrst uvwx yz23 4567"


@pytest.fixture
def issued(settings, tmp_path, live_server, fast_passwords):
    from certificates.services import certificate_issue
    from quizzes.models import Quiz
    from tests.factories import account, passed_exam_attempt

    settings.SITE_URL = live_server.url
    settings.CERT_KEY_DIR = tmp_path / "keys"
    user = account()
    exam = Quiz.objects.create(slug="final-exam", is_exam=True, title={"en": "Final exam"})
    return certificate_issue(attempt=passed_exam_attempt(user, exam), user=user)


def look_up(page, live_server, typed: str, language: str = "en"):
    page.goto(f"{live_server.url}/{language}/certificates/verify/")
    page.fill("#lookup input[name=id]", typed)
    page.click("#lookup button[type=submit]")
    page.wait_for_load_state()


def serious_axe_findings(page) -> list[str]:
    page.evaluate(AXE.read_text(encoding="utf-8"))  # evaluate is not bound by the page's CSP
    violations = page.evaluate("() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)")
    return [f"{v['id']}: {v['help']}" for v in violations if v["impact"] in ("serious", "critical")]


def expected_refusals_only(page) -> None:
    """Chromium logs each 4xx page as a console error: those are the answers under test."""
    page.problems.items = [p for p in page.problems.items if "status of 400" not in p and "status of 404" not in p]


def test_without_javascript_a_typed_id_opens_the_certificate(new_page, live_server, issued):
    page = new_page(java_script_enabled=False)
    look_up(page, live_server, issued.id.lower())
    assert page.url == f"{live_server.url}/en/certificates/{issued.display_id}/"
    assert "Valid." in page.text_content(".certificate-status")


def test_without_javascript_bad_input_and_unknown_ids_are_explained(new_page, live_server, issued):
    page = new_page(java_script_enabled=False)
    look_up(page, live_server, "my certificate")
    assert "This is not a certificate ID." in page.text_content("#lookup-errors")
    assert page.input_value("#lookup input[name=id]") == "my certificate"  # kept, to correct it
    look_up(page, live_server, NEVER_ISSUED)
    assert page.text_content("h1") == "No certificate with this ID was ever issued"
    assert "ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ23-4567" in page.text_content(".certificate-status")
    expected_refusals_only(page)


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_the_look_up_pages_have_no_serious_accessibility_findings(new_page, live_server, issued, language):
    page = new_page()
    look_up(page, live_server, "my certificate", language)
    assert page.is_visible("#lookup-errors") and serious_axe_findings(page) == []
    look_up(page, live_server, NEVER_ISSUED, language)
    assert page.is_visible("#never-issued-title") and serious_axe_findings(page) == []
    expected_refusals_only(page)
