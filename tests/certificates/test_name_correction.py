"""A name correction reissues the certificate with the date it was earned, and refuses hidden text."""

import base64
import io
from datetime import timedelta

import pypdf
from django.urls import reverse

from certificates.models import Certificate
from certificates.services import certificate_correct_name


def test_a_corrected_certificate_keeps_the_original_issue_date(learner, certificate):
    earned = certificate.issued_at - timedelta(days=40)  # corrected long after the exam
    Certificate.objects.filter(pk=certificate.pk).update(issued_at=earned)
    replacement = certificate_correct_name(certificate=certificate, user=learner, name="Asha V. Verma")
    replacement.refresh_from_db()
    assert replacement.issued_at == earned and replacement.name == "Asha V. Verma"


def test_the_corrected_credential_and_pdf_show_the_original_date(learner_client, learner, certificate):
    earned = certificate.issued_at.replace(year=2025, month=3, day=14)
    Certificate.objects.filter(pk=certificate.pk).update(issued_at=earned)
    url = reverse("certificates:correct_name", args=[certificate.display_id])
    assert learner_client.post(url, {"full_name": "Asha V. Verma"}).status_code == 302
    replacement = Certificate.objects.exclude(pk=certificate.pk).get()
    assert replacement.issued_at == earned
    payload = replacement.credential.split(".")[1]
    signed = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    assert '"validFrom":"2025-03-14T' in signed.replace(" ", "")
    pdf = learner_client.get(reverse("certificates:pdf", args=[replacement.display_id])).content
    assert "issued 14 Mar 2025" in pypdf.PdfReader(io.BytesIO(pdf)).pages[0].extract_text()


def test_a_correction_with_a_direction_override_is_refused(learner_client, certificate):
    url = reverse("certificates:correct_name", args=[certificate.display_id])
    response = learner_client.post(url, {"full_name": "Asha \u202eamreV"})
    assert response.status_code == 400
    assert "invisible or control character" in response.text
    assert Certificate.objects.count() == 1
