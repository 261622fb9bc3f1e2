"""Responses that differ by HX-Request say so in Vary; Back after a history-cache miss gets a page."""

import pytest

pytestmark = pytest.mark.django_db


def test_search_answers_htmx_with_a_fragment_and_varies_on_the_header(client, synced_content):
    page = client.get("/en/search/", {"q": "memory"})
    fragment = client.get("/en/search/", {"q": "memory"}, HTTP_HX_REQUEST="true")
    assert "<html" in page.content.decode() and "<html" not in fragment.content.decode()
    assert "HX-Request" in page["Vary"] and "HX-Request" in fragment["Vary"]


def test_a_history_restore_request_gets_the_whole_search_page(client, synced_content):
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_HISTORY_RESTORE_REQUEST": "true"}
    response = client.get("/en/search/", {"q": "memory"}, **headers)
    assert "<html" in response.content.decode()
