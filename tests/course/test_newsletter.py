"""Newsletter: double opt-in, one-click unsubscribe, addresses never exposed."""

import re

import pytest
from django.core import mail

from course.models import Subscriber
from course.services import newsletter_send

pytestmark = pytest.mark.django_db
FROM_THE_SITE = {"HTTP_ORIGIN": "http://testserver"}  # what a browser sends with the site's own form


@pytest.fixture
def client():
    """A browser on the site's pages: its posts carry the site's Origin."""
    from django.test import Client

    return Client(**FROM_THE_SITE)


def _link(message, kind: str) -> str:
    return re.search(rf"http://127\.0\.0\.1:8000(/\w+/newsletter/{kind}/[^\s/]+/)", message.body).group(1)


def test_subscribing_sends_a_confirmation_and_does_not_subscribe_yet(client):
    response = client.post("/fr/newsletter/", {"email": "Lea@Example.com"})
    assert response.status_code == 200
    subscriber = Subscriber.objects.get(email="lea@example.com")
    assert subscriber.language == "fr" and not subscriber.is_active
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["lea@example.com"]
    assert "/fr/newsletter/confirm/" in mail.outbox[0].body
    assert "List-Unsubscribe" in mail.outbox[0].extra_headers


def test_the_signed_link_confirms_the_subscription(client):
    client.post("/en/newsletter/", {"email": "sam@example.com"})
    response = client.get(_link(mail.outbox[0], "confirm"))
    assert response.status_code == 200
    assert Subscriber.objects.get(email="sam@example.com").is_active


def test_a_tampered_confirmation_link_is_refused(client):
    client.post("/en/newsletter/", {"email": "sam@example.com"})
    link = _link(mail.outbox[0], "confirm")
    response = client.get(link[:-3] + "xx/")
    assert response.status_code == 400
    assert not Subscriber.objects.get(email="sam@example.com").is_active


def test_one_click_unsubscribe_works_without_a_session_or_csrf_token(client):
    client.post("/en/newsletter/", {"email": "sam@example.com"})
    client.get(_link(mail.outbox[0], "confirm"))
    assert newsletter_send(subject="New guide", body="Guide 6 is out.", language="en") == 1
    issue = mail.outbox[-1]
    unsubscribe = re.search(r"<http://127\.0\.0\.1:8000([^>]+)>", issue.extra_headers["List-Unsubscribe"]).group(1)
    assert issue.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    from django.test import Client

    response = Client(enforce_csrf_checks=True).post(unsubscribe, {"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert Subscriber.objects.get(email="sam@example.com").unsubscribed_at is not None
    assert newsletter_send(subject="Another", body="x", language="en") == 0


def test_the_unsubscribe_link_asks_before_acting_on_get(client):
    client.post("/en/newsletter/", {"email": "sam@example.com"})
    client.get(_link(mail.outbox[0], "confirm"))
    subscriber = Subscriber.objects.get(email="sam@example.com")
    from course.services import unsubscribe_url

    path = unsubscribe_url(subscriber).removeprefix("http://127.0.0.1:8000")
    assert client.get(path).status_code == 200
    assert Subscriber.objects.get(email="sam@example.com").is_active


def test_subscribing_twice_does_not_reveal_that_the_address_exists(client):
    first = client.post("/en/newsletter/", {"email": "sam@example.com"}, HTTP_HX_REQUEST="true")
    second = client.post("/en/newsletter/", {"email": "sam@example.com"}, HTTP_HX_REQUEST="true")
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert b"sam@example.com" not in second.content


def test_an_invalid_address_gets_a_clear_400(client):
    response = client.post("/en/newsletter/", {"email": "not-an-address"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "valid email address" in response.content.decode()
    assert Subscriber.objects.count() == 0


def test_a_subscription_needs_no_csrf_token_yet_cannot_resubscribe_anyone_without_their_link():
    """The form is on pages cached for every visitor (no per-visitor token); what a forged post
    can do is what the form does: mail a confirmation link, and nothing more."""
    from django.test import Client

    visitor = Client(enforce_csrf_checks=True, **FROM_THE_SITE)
    assert visitor.post("/en/newsletter/", {"email": "sam@example.com"}).status_code == 200
    assert not Subscriber.objects.get(email="sam@example.com").is_active
    visitor.get(_link(mail.outbox[0], "confirm"))
    Subscriber.objects.filter(email="sam@example.com").update(unsubscribed_at="2026-01-01T00:00:00Z")
    assert visitor.post("/fr/newsletter/", {"email": "sam@example.com"}).status_code == 200
    assert not Subscriber.objects.get(email="sam@example.com").is_active  # still unsubscribed
    visitor.get(_link(mail.outbox[-1], "confirm"))
    assert Subscriber.objects.get(email="sam@example.com").is_active


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "https://evil.example"},
        {"HTTP_ORIGIN": "null"},  # a sandboxed frame
        {"HTTP_ORIGIN": "http://testserver.evil.example"},
        {"HTTP_REFERER": "https://evil.example/page-with-a-hidden-form.html"},
        {},  # no word of where it comes from
    ],
)
def test_a_subscription_posted_from_another_site_is_refused(headers):
    """The form carries no CSRF token, so a cross-site page could post it in a visitor's name;
    the browser's Origin (or Referer) tells it apart."""
    from django.test import Client

    response = Client().post("/fr/newsletter/", {"email": "victim@example.com"}, **headers)
    assert response.status_code == 403
    assert "Ce formulaire ne peut être envoyé que depuis les pages du cours." in response.content.decode()
    assert not Subscriber.objects.exists() and not mail.outbox


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": "http://testserver"},
        {"HTTP_ORIGIN": "http://127.0.0.1:8000"},  # SITE_URL, behind a proxy that rewrites the host
        {"HTTP_REFERER": "http://testserver/en/guides/what-is-gradient-accumulation/"},
    ],
)
def test_a_subscription_from_the_sites_own_pages_is_taken(headers):
    from django.test import Client

    assert Client().post("/en/newsletter/", {"email": "reader@example.com"}, **headers).status_code == 200
    assert Subscriber.objects.filter(email="reader@example.com").exists()


def test_a_trusted_origin_may_name_subdomains(settings):
    from django.test import Client

    settings.CSRF_TRUSTED_ORIGINS = ["https://*.course.example.org"]
    origin = {"HTTP_ORIGIN": "https://fr.course.example.org"}
    assert Client().post("/en/newsletter/", {"email": "reader@example.com"}, **origin).status_code == 200
    other = {"HTTP_ORIGIN": "http://fr.course.example.org"}  # the scheme counts too
    assert Client().post("/en/newsletter/", {"email": "other@example.com"}, **other).status_code == 403
