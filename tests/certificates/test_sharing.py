"""The share buttons (LinkedIn, copy link) are the certificate holder's: everybody else who opens the
page to check it, signed in or not, gets the facts and the PDF only."""

import pytest
from django.test import Client
from django.urls import reverse

from tests.factories import account

pytestmark = pytest.mark.django_db

LINKEDIN = "linkedin.com/profile/add?startTask=CERTIFICATION_NAME"


def page(client: Client, certificate) -> str:
    response = client.get(reverse("certificates:verify", args=[certificate.display_id]))
    assert response.status_code == 200
    return response.text


def test_the_holder_sees_the_share_buttons(learner_client, certificate):
    text = page(learner_client, certificate)
    assert LINKEDIN in text and "data-copy=" in text and "Download and share" in text
    assert reverse("certificates:pdf", args=[certificate.display_id]) in text


def test_a_visitor_sees_the_pdf_but_no_share_buttons(certificate):
    text = page(Client(), certificate)
    assert LINKEDIN not in text and "data-copy=" not in text and "Add to LinkedIn" not in text
    assert reverse("certificates:pdf", args=[certificate.display_id]) in text


def test_another_signed_in_learner_sees_no_share_buttons(certificate):
    other = account("ravi", full_name="Ravi")
    client = Client()
    client.force_login(other)
    text = page(client, certificate)
    assert LINKEDIN not in text and "data-copy=" not in text


def test_the_page_cached_for_visitors_never_carries_the_holders_buttons(learner_client, certificate):
    assert LINKEDIN in page(learner_client, certificate)  # the holder's own page is never cached
    visitor = page(Client(), certificate)  # renders and caches the visitors' page
    assert LINKEDIN not in visitor and LINKEDIN not in page(Client(), certificate)
    assert LINKEDIN in page(learner_client, certificate)
