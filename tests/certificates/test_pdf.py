import io
import unicodedata
from datetime import UTC, datetime
from urllib.parse import unquote

import pypdf
import pytest
from django.urls import reverse
from django.utils import translation

from accounts.services import profile_for
from certificates.models import Certificate
from certificates.pdf import certificate_pdf

HINDI_NAME = "आशा क्षितिज वर्मा"  # a conjunct (क्ष), i-matras drawn before their consonant, a reph (र्म)


def extracted_text(pdf: bytes) -> str:
    """Text as pypdf reads it. Glyphs that are only part of a shaped cluster (the second glyph of
    क्षि) carry no Unicode of their own, and pypdf shows their raw codes as control characters."""
    text = pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
    return "".join(ch for ch in text if ch == "\n" or unicodedata.category(ch) != "Cc")


@pytest.fixture
def hindi_certificate(client, learner, quizzes, take_quiz) -> Certificate:
    profile = profile_for(learner)
    profile.full_name = HINDI_NAME
    profile.save()
    client.force_login(learner)
    with translation.override("hi"):
        attempt = take_quiz(client, "final-exam")
        client.post(reverse("certificates:claim", args=["final-exam", attempt.key]))
    return Certificate.objects.get()


def test_the_pdf_carries_the_hindi_name_shaped_and_extractable(client, hindi_certificate):
    response = client.get(reverse("certificates:pdf", args=[hindi_certificate.display_id]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    text = extracted_text(response.content)
    assert HINDI_NAME in text
    assert hindi_certificate.display_id in text
    assert "Certificate of completion" in text  # the English line beneath the Hindi one
    raw = pypdf.PdfReader(io.BytesIO(response.content)).pages[0].extract_text()
    assert raw != text  # shaped: clusters became ligature glyphs, not one glyph per character


def test_the_pdf_embeds_its_own_fonts_and_links_to_the_verification_page(client, hindi_certificate, settings):
    response = client.get(reverse("certificates:pdf", args=[hindi_certificate.display_id]))
    reader = pypdf.PdfReader(io.BytesIO(response.content))
    fonts = {str(font.get_object()["/BaseFont"]) for font in reader.pages[0]["/Resources"]["/Font"].values()}
    assert any("NotoSansDevanagari" in f for f in fonts) and any(f.endswith("+NotoSans") for f in fonts)
    with translation.override("hi"):
        url = settings.SITE_URL + reverse("certificates:verify", args=[hindi_certificate.display_id])
    links = [a.get_object()["/A"]["/URI"] for a in reader.pages[0]["/Annots"]]
    assert url in links  # the QR code area and the printed ID both link there


def test_the_pdf_filename_is_safe_for_non_latin_names(client, hindi_certificate):
    disposition = client.get(reverse("certificates:pdf", args=[hindi_certificate.display_id]))["Content-Disposition"]
    ascii_part, utf8_part = disposition.split("; filename*=UTF-8''")
    assert ascii_part == f'attachment; filename="certificate-{hindi_certificate.id[:8]}.pdf"'
    assert disposition.isascii()
    assert unquote(utf8_part) == f"certificate-आशा-क्षितिज-वर्मा-{hindi_certificate.id[:8]}.pdf"


def test_names_with_path_characters_are_cleaned_from_the_filename(client, certificate):
    Certificate.objects.filter(pk=certificate.pk).update(name='../"Asha"\r\nVerma')
    disposition = client.get(reverse("certificates:pdf", args=[certificate.display_id]))["Content-Disposition"]
    assert unquote(disposition.split("''")[1]) == f"certificate-Asha-Verma-{certificate.id[:8]}.pdf"


def test_the_french_pdf_is_set_in_french_typography():
    certificate = Certificate(
        id="ABCDEFGHIJKLMNOPQRSTUVWXYZ234567",
        name="Zoë Ångström",
        language="fr",
        score_percent=90,
        score_band="90–100%",
        issued_at=datetime(2026, 12, 1, tzinfo=UTC),
    )
    text = extracted_text(certificate_pdf(certificate, "https://course.example.org/fr/certificates/x/"))
    assert "Vérifier ce certificat\u00a0: / Verify this certificate:" in text
    assert "Tranche de score 90–100\u202f% · délivré le 1 déc. 2026" in text
    assert "Score band 90–100% · issued" in text  # the English line beneath keeps English typography
