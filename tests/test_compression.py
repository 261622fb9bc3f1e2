"""Pages travel gzip-compressed to browsers that accept it (GZipMiddleware, and the public page
cache's precompressed bodies); media keeps its bytes as they are, so byte ranges still hold."""

import gzip

import pytest
from django.test import Client


@pytest.fixture
def synced_content(db, guides_synced_for_module):
    """The real content, synced once for this module: its every database test reads it (tests/conftest.py)."""


pytestmark = pytest.mark.django_db

GUIDE = "/en/guides/the-accumulation-loop/"
ACCEPTS = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br, zstd"}  # what Chromium sends


def test_a_guide_page_is_served_gzip_compressed_when_asked(synced_content):
    plain = Client().get(GUIDE)
    rendered = Client().get(GUIDE.replace("/en/", "/fr/"), **ACCEPTS)  # rendered now, then cached
    cached = Client().get(GUIDE, **ACCEPTS)  # from the cache
    assert plain.status_code == 200 and "Content-Encoding" not in plain
    for response in (rendered, cached):
        assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in response["Vary"] and "Cookie" in response["Vary"]
        assert int(response["Content-Length"]) == len(response.content) < len(gzip.decompress(response.content)) / 3
    assert gzip.decompress(cached.content) == plain.content
    assert '<html lang="fr">' in gzip.decompress(rendered.content).decode()


def test_a_browser_that_does_not_accept_gzip_gets_the_page_as_it_is(synced_content):
    Client().get(GUIDE, **ACCEPTS)
    for response in (Client().get(GUIDE), Client().get(GUIDE, HTTP_ACCEPT_ENCODING="identity")):
        assert "Content-Encoding" not in response and "Accept-Encoding" in response["Vary"]
        assert response.content.startswith(b"<!doctype html>")


def test_a_signed_in_learners_page_is_compressed_with_djangos_breach_padding(learner_client, synced_content):
    """The learner's page holds a CSRF token: Django pads each compressed answer with a random
    file name in the gzip header, so its length does not give the token away."""
    response = learner_client.get(GUIDE, **ACCEPTS)
    assert response["Content-Encoding"] == "gzip"
    assert response.content[3] & gzip.FNAME  # the header's file name field: the padding
    assert b"csrfmiddlewaretoken" in gzip.decompress(response.content)


def test_media_is_served_as_it_is_so_that_byte_ranges_hold(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    (tmp_path / "narration").mkdir()
    (tmp_path / "narration" / "compression-test.ogg").write_bytes(b"OggS" + bytes(2000))
    response = Client().get("/media/narration/compression-test.ogg", HTTP_RANGE="bytes=0-3", **ACCEPTS)
    assert response.status_code == 206 and "Content-Encoding" not in response
    assert b"".join(response.streaming_content) == b"OggS"
