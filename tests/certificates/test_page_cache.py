"""A certificate's verification page is cached for visitors without a session, yet a change of
status shows at once: revoked, superseded by a corrected name, or deleted."""

import pytest
from django.test import Client
from django.urls import reverse

from certificates import services
from certificates.models import Certificate

pytestmark = pytest.mark.django_db


def visitor_sees(certificate: Certificate) -> str:
    response = Client().get(reverse("certificates:verify", args=[certificate.display_id]))
    return response.content.decode() if response.status_code == 200 else str(response.status_code)


def test_the_page_is_cached_for_visitors(certificate, django_assert_num_queries):
    first = visitor_sees(certificate)
    with django_assert_num_queries(0):
        assert visitor_sees(certificate) == first


def test_a_revocation_shows_at_once(certificate):
    assert "Valid." in visitor_sees(certificate)
    services.certificate_revoke(certificate=certificate, reason="Exam taken by someone else.")
    page = visitor_sees(certificate)
    assert "Revoked." in page and "Exam taken by someone else." in page


def test_a_corrected_name_supersedes_the_cached_page_at_once(certificate, learner):
    assert "Valid." in visitor_sees(certificate)
    services.certificate_correct_name(certificate=certificate, user=learner, name="Asha V. Verma")
    assert "Superseded." in visitor_sees(certificate)


def test_a_deleted_certificate_is_gone_at_once(certificate):
    visitor_sees(certificate)
    Certificate.objects.get(pk=certificate.pk).delete()  # e.g. from the admin
    assert visitor_sees(certificate) == "404"
