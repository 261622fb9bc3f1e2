"""Responses that differ by HX-Request say so in Vary; Back after a history-cache miss gets a page;
every page carries htmx's one error message, translated."""

import pytest
from django.core import mail

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
HISTORY_RESTORE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_HISTORY_RESTORE_REQUEST": "true"}


def varies_on_htmx(response) -> bool:
    vary = {name.strip() for name in response["Vary"].split(",")}
    return {"HX-Request", "HX-History-Restore-Request"} <= vary


def test_search_answers_htmx_with_a_fragment_and_varies_on_the_headers(client, synced_content):
    page = client.get("/en/search/", {"q": "memory"})
    fragment = client.get("/en/search/", {"q": "memory"}, **HTMX)
    assert "<html" in page.content.decode() and "<html" not in fragment.content.decode()
    assert 'id="search-results"' in fragment.content.decode()
    assert varies_on_htmx(page) and varies_on_htmx(fragment)


def test_a_history_restore_request_gets_the_whole_search_page(client, synced_content):
    response = client.get("/en/search/", {"q": "memory"}, **HISTORY_RESTORE)
    assert "<html" in response.content.decode() and varies_on_htmx(response)


def test_the_newsletter_form_varies_on_the_headers(client, db):
    fragment = client.post("/en/newsletter/", {"email": "reader@example.com"}, HTTP_ORIGIN="http://testserver", **HTMX)
    assert "<html" not in fragment.content.decode() and varies_on_htmx(fragment)
    page = client.post("/en/newsletter/", {"email": "other@example.com"}, HTTP_ORIGIN="http://testserver")
    assert "<html" in page.content.decode() and varies_on_htmx(page)
    assert len(mail.outbox) == 2


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_every_page_carries_the_translated_swap_error_message(client, synced_content, language):
    from django.utils import translation

    with translation.override(language):
        expected = translation.gettext(
            "This part of the page could not be updated. Please check your connection and try again, "
            "or reload the page."
        )
    html = client.get(f"/{language}/guides/").content.decode()
    assert 'id="swap-error"' in html and f'data-swap-error="{expected}"' in html
    if language != "en":
        assert "could not be updated" not in expected  # translated, not the English fallback
