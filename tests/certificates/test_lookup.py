"""Anyone can type a certificate's ID on the verify page and land on its page, without JavaScript; an ID
that was never issued gets a page that says so (404), unlike a revoked certificate, which keeps its own."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from certificates.services import certificate_revoke
from tests.french_typography import faults, html_prose

pytestmark = pytest.mark.django_db

NEVER_ISSUED = "ABCD-EFGH-IJKL-MNOP-QRST-UVWX-YZ23-4567"  # well formed, but no such certificate


def localized(name: str, *args, language: str = "en") -> str:
    with translation.override(language):
        return reverse(name, args=args)


def test_the_verify_page_carries_a_plain_get_form_for_the_id():
    page = Client().get(reverse("certificates:verify_credential"))
    assert page.status_code == 200
    form = page.text.split('id="lookup"', 1)[0].rsplit("<form", 1)[1]
    assert 'method="get"' in form and f'action="{reverse("certificates:lookup")}"' in form
    assert 'name="id"' in page.text and "Look up the certificate" in page.text


def test_an_id_typed_in_any_form_lands_on_the_certificate(certificate):
    typed = "  " + certificate.id.lower()[:16] + " " + certificate.id.lower()[16:] + " "
    response = Client().get(reverse("certificates:lookup"), {"id": typed}, follow=True)
    assert response.redirect_chain[0] == (reverse("certificates:verify", args=[certificate.display_id]), 302)
    assert response.status_code == 200 and "Valid." in response.text and certificate.display_id in response.text


@pytest.mark.parametrize(
    ("typed", "message"),
    [
        ("", "This field is required."),
        ("not an id", "This is not a certificate ID."),
        ("ABCD-EFGH", "This is not a certificate ID."),
        ("0" * 32, "This is not a certificate ID."),  # 0, 1, 8 and 9 are not in the alphabet
        ("A" * 101, "Ensure this value has at most 100 characters"),
        ("<script>alert(1)</script>", "This is not a certificate ID."),
    ],
)
def test_bad_input_gets_the_form_back_with_what_is_wrong(typed, message):
    response = Client().get(reverse("certificates:lookup"), {"id": typed})
    assert response.status_code == 400
    errors = response.text.split('id="lookup-errors"', 1)[1].split("</div>", 1)[0]
    assert message in errors
    assert "<script>alert(1)</script>" not in response.text


def test_the_look_up_opened_directly_shows_its_form_without_an_error():
    """A bookmarked or typed /certificates/lookup/ is not a bad request: nothing was asked yet."""
    response = Client().get(reverse("certificates:lookup"))
    assert response.status_code == 200
    assert 'name="id"' in response.text and "Look up the certificate" in response.text
    assert 'id="lookup-errors"' not in response.text and "This field is required." not in response.text


@pytest.mark.parametrize(
    ("language", "label"),
    [("en", "Verify a certificate"), ("hi", "प्रमाणपत्र सत्यापित करें"), ("fr", "Vérifier un certificat")],
)
def test_every_page_footer_links_to_the_certificate_check(language, label):
    html = Client().get(localized("course:home", language=language)).text
    footer = html.split("<footer", 1)[1]
    assert f'<a href="{localized("certificates:verify_credential", language=language)}">{label}</a>' in footer


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "This is not a certificate ID."),
        ("hi", "यह प्रमाणपत्र ID नहीं है।"),
        ("fr", "pas un identifiant de certificat. Un identifiant compte 32 caractères"),
    ],
)
def test_the_form_error_is_translated(language, message):
    response = Client().get(localized("certificates:lookup", language=language), {"id": "nope"})
    assert response.status_code == 400 and message in response.text


def test_a_well_formed_id_never_issued_lands_on_a_404_that_says_so():
    response = Client().get(reverse("certificates:lookup"), {"id": NEVER_ISSUED}, follow=True)
    assert response.status_code == 404
    assert "No certificate with this ID was ever issued" in response.text
    assert f"<code>{NEVER_ISSUED}</code>" in response.text
    assert "never issued a certificate with the ID" in response.text
    assert 'name="id"' in response.text  # the form again, to correct a typo
    assert "Revoked." not in response.text


def test_a_malformed_id_in_the_address_says_it_is_not_an_id():
    response = Client().get(reverse("certificates:verify", args=["HELLO-WORLD"]))
    assert response.status_code == 404
    assert "No certificate with this ID was ever issued" in response.text
    assert "is not a certificate ID" in response.text


@pytest.mark.parametrize(
    ("language", "title"),
    [
        ("en", "No certificate with this ID was ever issued"),
        ("hi", "इस ID वाला कोई प्रमाणपत्र कभी जारी नहीं हुआ"),
        ("fr", "jamais été délivré sous cet identifiant"),
    ],
)
def test_the_never_issued_page_is_translated(language, title):
    response = Client().get(localized("certificates:verify", NEVER_ISSUED, language=language))
    assert response.status_code == 404 and title in response.text


def test_a_revoked_certificate_is_not_taken_for_a_never_issued_one(certificate):
    certificate_revoke(certificate=certificate, reason="Exam taken by someone else")
    response = Client().get(reverse("certificates:lookup"), {"id": certificate.id}, follow=True)
    assert response.status_code == 200
    assert "Revoked." in response.text and "Exam taken by someone else" in response.text
    assert "ever issued" not in response.text


def french_faults(html: str) -> list[str]:
    body = re.search(r"<body\b.*</body>", html, re.S).group(0)
    return [problem for run in html_prose(body) for problem in faults(run)]


def test_the_french_pages_of_the_look_up_have_french_typography():
    client = Client()
    pages = [
        client.get(localized("certificates:verify_credential", language="fr")),
        client.get(localized("certificates:lookup", language="fr"), {"id": "nope"}),
        client.get(localized("certificates:verify", NEVER_ISSUED, language="fr")),
        client.get(localized("certificates:verify", "nope", language="fr")),
    ]
    assert [page.status_code for page in pages] == [200, 400, 404, 404]
    assert {page.request["PATH_INFO"]: french_faults(page.text) for page in pages if french_faults(page.text)} == {}
