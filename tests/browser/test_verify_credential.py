"""The certificate check at /<lang>/certificates/verify/ in Chromium: WebCrypto RS256 (RSASSA-PKCS1-v1_5)
and Ed25519 against the JWKS, the status from the 1EdTech revocation list or, for credentials issued
before it, the signed W3C status list; with a valid, a tampered, a revoked, a superseded, a foreign,
an old-format and a hashed-name credential, pasted or inside the certificate PDF. Nothing the visitor
gives is sent to the server."""

import base64
import json
import re
import warnings
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import formats, translation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = Path(__file__).parent / "vendor" / "axe.min.js"
VERDICTS = ["valid", "revoked", "superseded", "tampered", "unknown-key", "unreadable", "unavailable"]


@pytest.fixture
def issue(settings, tmp_path, live_server, fast_passwords):
    """Issues a learner's certificate signed for the live server's address, as a learner would have it."""
    from certificates.services import certificate_issue
    from quizzes.models import Quiz
    from tests.factories import account, passed_exam_attempt

    settings.SITE_URL = live_server.url
    settings.CERT_KEY_DIR = tmp_path / "keys"
    user = account()
    exam = Quiz.objects.create(slug="final-exam", is_exam=True, title={"en": "Final exam"})

    def issue_one():
        return certificate_issue(attempt=passed_exam_attempt(user, exam), user=user)

    return issue_one


@pytest.fixture
def issued(issue):
    return issue()


def open_check(new_page, live_server, language: str = "en"):
    page = new_page()
    page.sent = []
    page.on("request", lambda request: page.sent.append((request.method, request.url, request.post_data)))
    page.goto(f"{live_server.url}/{language}/certificates/verify/")
    return page


def paste_and_check(page, token: str) -> None:
    page.fill("#credential-jwt", token)
    page.click("#credential-check-button")


def verdict(page) -> str:
    """The one verdict shown once the check is over."""
    page.wait_for_selector('[data-verdict]:not([hidden]):not([data-verdict="checking"])')
    shown = [name for name in VERDICTS if page.is_visible(f'[data-verdict="{name}"]')]
    assert len(shown) == 1, shown
    return shown[0]


def written_date(moment, language: str) -> str:
    """The date as the site's pages write it in `language` (config/formats), not numbers only."""
    with translation.override(language):
        written = formats.date_format(moment, "DATE_FORMAT")
    assert re.fullmatch(r"\d{1,2} \S+ \d{4}", written), written
    return written


def serious_axe_findings(page) -> list[str]:
    page.evaluate(AXE.read_text(encoding="utf-8"))  # evaluate is not bound by the page's CSP
    violations = page.evaluate("() => axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)")
    return [f"{v['id']}: {v['help']}" for v in violations if v["impact"] in ("serious", "critical")]


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def assert_nothing_uploaded(page, token: str) -> None:
    assert page.sent and all(method == "GET" and body is None for method, _url, body in page.sent), page.sent
    assert not any(token.split(".")[2] in url for _method, url, _body in page.sent)
    assert any(url.endswith("/.well-known/jwks.json") for _m, url, _b in page.sent)


def test_a_valid_credential_is_valid_and_stays_in_the_browser(new_page, live_server, issued, screenshot):
    page = open_check(new_page, live_server)
    paste_and_check(page, issued.credential)
    assert verdict(page) == "valid"
    screenshot(page, "verify-credential-valid", full_page=True)
    assert serious_axe_findings(page) == []
    assert page.text_content('[data-field="name"]') == "Asha Verma"
    assert page.text_content('[data-field="band"]') == issued.score_band
    assert page.text_content('[data-field="issued"]') == written_date(issued.issued_at, "en")  # "7 Dec 2026"
    assert page.get_attribute('[data-field="page"]', "href").endswith(f"/en/certificates/{issued.display_id}/")
    assert_nothing_uploaded(page, issued.credential)
    assert any(url.endswith("/api/certificates/revocations/1") for _m, url, _b in page.sent)
    assert not any("/api/certificates/" + issued.display_id in url for _m, url, _b in page.sent)  # no lookup


@pytest.mark.parametrize("algorithm", ["RS256", "EdDSA"])
def test_rs256_and_eddsa_credentials_are_checked_in_the_browser(new_page, live_server, issue, settings, algorithm):
    from certificates.services import certificate_revoke

    settings.CERT_SIGNING_ALGORITHM = algorithm
    certificate = issue()
    header = json.loads(base64.urlsafe_b64decode(certificate.credential.split(".")[0] + "=="))
    assert header["alg"] == algorithm
    page = open_check(new_page, live_server)
    paste_and_check(page, certificate.credential)
    assert verdict(page) == "valid" and page.text_content('[data-field="name"]') == "Asha Verma"
    header, payload, signature = certificate.credential.split(".")
    flipped = bytearray(base64.urlsafe_b64decode(signature + "=="))
    flipped[-1] ^= 1
    paste_and_check(page, ".".join([header, payload, b64(bytes(flipped))]))
    assert verdict(page) == "tampered"
    certificate_revoke(certificate=certificate, reason="Issued by mistake.")
    paste_and_check(page, certificate.credential)
    assert verdict(page) == "revoked" and page.text_content('[data-field="reason"]') == "Issued by mistake."


def test_a_credential_issued_before_kid_urls_is_still_checked(new_page, live_server, issue, settings):
    """EdDSA with a bare-thumbprint kid and the W3C status list, from a site that now signs with RS256."""
    from certificates.services import certificate_revoke
    from tests.certificates import legacy

    old = legacy.install(settings.CERT_KEY_DIR, live_server.url)
    new = issue()  # the site's first RS256 signature retires the old Ed25519 key
    assert new.kid != old.kid
    page = open_check(new_page, live_server, "hi")
    paste_and_check(page, old.credential)
    assert verdict(page) == "valid" and page.text_content('[data-field="name"]') == "Meera Iyer"
    assert any(url.endswith("/api/certificates/status/1") for _m, url, _b in page.sent)
    certificate_revoke(certificate=old, reason="Exam taken by someone else.")
    paste_and_check(page, old.credential)
    assert verdict(page) == "revoked"
    assert page.text_content('[data-field="reason"]') == "Exam taken by someone else."


def test_a_hashed_name_is_shown_when_the_public_record_matches_it(new_page, live_server, issue, settings):
    from certificates.models import Certificate

    settings.CERT_IDENTIFIER_HASHED = True
    certificate = issue()
    assert "Asha" not in base64.urlsafe_b64decode(certificate.credential.split(".")[1] + "==").decode()
    page = open_check(new_page, live_server, "fr")
    paste_and_check(page, certificate.credential)
    assert verdict(page) == "valid"  # shown once the name is known: its record was read, its hash matched
    assert page.text_content('[data-field="name"]') == "Asha Verma"
    assert any(url.endswith(f"/api/certificates/{certificate.display_id}") for _m, url, _b in page.sent)
    Certificate.objects.filter(pk=certificate.pk).update(name="Someone Else")  # a record the hash disowns
    paste_and_check(page, certificate.credential)
    assert verdict(page) == "valid" and page.text_content('[data-field="name"]') == ""


def test_a_french_page_shows_the_band_in_french_typography(new_page, live_server, issued):
    page = open_check(new_page, live_server, "fr")
    paste_and_check(page, issued.credential)
    assert verdict(page) == "valid"
    assert issued.score_band.endswith("%")
    assert page.text_content('[data-field="band"]') == issued.score_band[:-1] + "\u202f%"  # "90–100 %"
    assert page.text_content('[data-field="issued"]') == written_date(issued.issued_at, "fr")  # "7 déc. 2026"


def test_the_certificate_pdf_is_checked_when_chosen_or_dropped(new_page, live_server, issued):
    pdf = Client().get(reverse("certificates:pdf", args=[issued.display_id])).content
    page = open_check(new_page, live_server)
    page.set_input_files("#credential-file", {"name": "certificate.pdf", "mimeType": "application/pdf", "buffer": pdf})
    assert verdict(page) == "valid"
    page.reload()
    transfer = page.evaluate_handle(
        """(data) => {
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], "certificate.pdf", { type: "application/pdf" }));
            return transfer;
        }""",
        base64.b64encode(pdf).decode(),
    )
    page.dispatch_event("#credential-drop", "drop", {"dataTransfer": transfer})
    assert verdict(page) == "valid" and page.text_content('[data-field="name"]') == "Asha Verma"
    assert_nothing_uploaded(page, issued.credential)


def test_a_tampered_credential_is_reported_in_french(new_page, live_server, issued):
    header, payload, signature = issued.credential.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["credentialSubject"]["identifier"][0]["identityHash"] = "Someone Else"
    page = open_check(new_page, live_server, "fr")
    paste_and_check(page, ".".join([header, b64(json.dumps(claims).encode()), signature]))
    assert verdict(page) == "tampered"
    assert "Falsifiée." in page.text_content('[data-verdict="tampered"]')
    assert not page.is_visible('[data-show="details"]')  # nothing from a forged credential is shown


def test_after_revoke_certificate_the_same_credential_is_revoked_in_hindi(new_page, live_server, issued, screenshot):
    call_command("revoke_certificate", issued.display_id, reason="Exam taken by someone else.")
    page = open_check(new_page, live_server, "hi")
    paste_and_check(page, issued.credential)
    assert verdict(page) == "revoked"
    assert "निरस्त" in page.text_content('[data-verdict="revoked"]')
    assert page.text_content('[data-field="reason"]') == "Exam taken by someone else."
    screenshot(page, "verify-credential-revoked-hi", full_page=True)


def test_a_corrected_certificate_reports_the_old_credential_superseded(new_page, live_server, issued):
    from certificates.services import certificate_correct_name

    replacement = certificate_correct_name(certificate=issued, user=issued.user, name="Asha V. Verma")
    page = open_check(new_page, live_server, "fr")
    paste_and_check(page, issued.credential)
    assert verdict(page) == "superseded"
    link = page.locator('[data-field="replacement"]')
    assert link.text_content() == replacement.display_id
    assert link.get_attribute("href") == f"/fr/certificates/{replacement.display_id}/"
    paste_and_check(page, replacement.credential)
    assert verdict(page) == "valid" and page.text_content('[data-field="name"]') == "Asha V. Verma"


@pytest.mark.parametrize(
    ("kid", "expected"),
    [
        ("thumbprint", "unknown-key"),  # the forger's key's own name
        ("https://attacker.example/key.json", "unknown-key"),  # a URL that would answer the forger's JWK
        ("{site}@attacker.example/key.json", "unknown-key"),  # the site's address as user info, then the forger's
        ("{our_kid}", "tampered"),  # the site's own kid: its key does not verify the forger's signature
    ],
)
def test_a_credential_signed_with_a_key_we_never_published_is_unknown(new_page, live_server, issued, kid, expected):
    """The page checks against the site's own JWKS only, whatever the kid names, and fetches nothing a
    credential names elsewhere."""
    from joserfc import jws
    from joserfc.jwk import OKPKey

    _header, payload, _signature = issued.credential.split(".")
    stranger = OKPKey.generate_key("Ed25519", private=True)
    kid = stranger.thumbprint() if kid == "thumbprint" else kid.format(site=live_server.url, our_kid=issued.kid)
    header = {"alg": "EdDSA", "typ": "JWT", "kid": kid}
    with warnings.catch_warnings():  # joserfc prefers the newer name "Ed25519"; OB 3.0 uses "EdDSA"
        warnings.simplefilter("ignore")
        forged = jws.serialize_compact(header, base64.urlsafe_b64decode(payload + "=="), stranger, algorithms=["EdDSA"])
    page = open_check(new_page, live_server)
    paste_and_check(page, forged)
    assert verdict(page) == expected
    assert all(url.startswith(live_server.url + "/") for _method, url, _data in page.sent), page.sent
    paste_and_check(page, "a photo of a certificate")
    assert verdict(page) == "unreadable"
