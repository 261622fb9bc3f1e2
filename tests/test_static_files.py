"""Static files and media answer byte-range requests (config/static_files.py): an audio player
needs them to show the narration's duration and to seek in it."""

import json
import urllib.error
import urllib.request

import pytest
from django.test import Client

SIZE = 1000
BODY = bytes(range(256)) * 3 + bytes(SIZE - 768)  # every byte's place is visible in the answer


def content(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.fixture
def files(settings, tmp_path):
    """A static file and a media file of SIZE bytes, in folders of their own; a client made after
    the settings change (the middleware finds static files when it starts, as in the site: the
    other tests let it look them up on each request, tests/conftest.py)."""
    settings.WHITENOISE_AUTOREFRESH = False
    settings.STATIC_ROOT = tmp_path / "static"
    settings.MEDIA_ROOT = tmp_path / "media"
    (settings.STATIC_ROOT / "css").mkdir(parents=True)
    (settings.MEDIA_ROOT / "narration").mkdir(parents=True)
    (settings.STATIC_ROOT / "css" / "range-test.css").write_bytes(BODY)
    (settings.MEDIA_ROOT / "narration" / "range-test.ogg").write_bytes(BODY)
    return Client()


URLS = ["/static/css/range-test.css", "/media/narration/range-test.ogg"]


@pytest.mark.parametrize("url", URLS)
def test_a_whole_file_says_it_accepts_byte_ranges(files, url):
    response = files.get(url)
    assert response.status_code == 200
    assert response["Accept-Ranges"] == "bytes"
    assert response["Content-Length"] == str(SIZE)
    assert content(response) == BODY


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize(
    "header, first, last",
    [
        ("bytes=100-199", 100, 199),
        ("bytes=0-", 0, SIZE - 1),  # what Chromium asks an audio file for first
        ("bytes=990-", 990, SIZE - 1),  # where a seek lands
        ("bytes=-5", SIZE - 5, SIZE - 1),  # the last five bytes
        ("bytes=900-5000", 900, SIZE - 1),  # an end past the file is cut to its last byte
        ("bytes=0-0", 0, 0),  # one byte (WhiteNoise 6.12 alone answers 416)
        ("bytes=-1", SIZE - 1, SIZE - 1),
        (f"bytes={SIZE - 1}-", SIZE - 1, SIZE - 1),
    ],
)
def test_a_range_is_answered_with_206_and_exactly_its_bytes(files, url, header, first, last):
    response = files.get(url, headers={"Range": header})
    assert response.status_code == 206
    assert response["Content-Range"] == f"bytes {first}-{last}/{SIZE}"
    assert response["Content-Length"] == str(last - first + 1)
    assert response["Accept-Ranges"] == "bytes"
    assert content(response) == BODY[first : last + 1]


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("header", [f"bytes={SIZE}-", "bytes=5000-6000"])
def test_a_range_past_the_end_is_416_with_the_size(files, url, header):
    response = files.get(url, headers={"Range": header})
    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{SIZE}"


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("header", ["bytes=a-b", "items=0-10", "bytes=0-10,20-30"])
def test_a_range_header_that_cannot_be_read_gets_the_whole_file(files, url, header):
    """RFC 9110 lets a server ignore a Range it does not support (several ranges among them)."""
    response = files.get(url, headers={"Range": header})
    assert response.status_code == 200 and content(response) == BODY


def test_narration_written_after_the_site_started_is_served(files, settings):
    assert files.get("/media/narration/later.ogg").status_code == 404
    (settings.MEDIA_ROOT / "narration" / "later.ogg").write_bytes(b"OggS" + bytes(60))
    response = files.get("/media/narration/later.ogg", headers={"Range": "bytes=0-3"})
    assert response.status_code == 206 and content(response) == b"OggS"


@pytest.mark.parametrize(
    "path",
    ["/media/narration/missing.ogg", "/media/narration/", "/media/../config/settings.py", "/media/%2e%2e/manage.py"],
)
def test_nothing_outside_media_root_or_missing_is_served(files, path):
    assert files.get(path).status_code == 404


@pytest.fixture
def narration_file(settings):
    """A file in the real narration folder: the live server, started once for the session, serves
    the MEDIA_ROOT it started with."""
    path = settings.NARRATION_DIR / "range-test-live.ogg"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(BODY)
    yield f"{settings.MEDIA_URL}narration/{path.name}"
    path.unlink()


def test_a_real_http_range_request_to_the_running_site(live_server, narration_file):
    """Over a socket, as a browser asks."""
    request = urllib.request.Request(live_server.url + narration_file, headers={"Range": "bytes=256-511"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 206
        assert response.headers["Content-Range"] == f"bytes 256-511/{SIZE}"
        assert response.headers["Accept-Ranges"] == "bytes"
        assert response.read() == BODY[256:512]
    past = urllib.request.Request(live_server.url + narration_file, headers={"Range": f"bytes={SIZE}-"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(past)
    assert refused.value.code == 416


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("header", ["bytes=-0", "bytes=-00", " bytes=-0 "])
def test_an_empty_suffix_range_is_416(files, url, header):
    """RFC 9110 section 14.1.1: a suffix range is satisfiable only when its length is not zero; WhiteNoise
    reads "-0" as "0-" and answers the whole file as a 206."""
    response = files.get(url, headers={"Range": header})
    assert response.status_code == 416
    assert response["Content-Range"] == f"bytes */{SIZE}"


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("header", ["bytes=1_0-2_0", "bytes=²-", "bytes=-١", "bytes=+5-10", "bytes=5 -10"])
def test_a_range_with_anything_but_ascii_digits_gets_the_whole_file(files, url, header):
    """Python's int() also reads underscores, signs, spaces and other scripts' digits; RFC 9110's
    positions are ASCII digits only, and a range that is not one is ignored like any unreadable one."""
    response = files.get(url, headers={"Range": header})
    assert response.status_code == 200 and content(response) == BODY


def test_every_static_file_collects_with_the_production_storage(settings, tmp_path):
    """bin/setup collects the static files with WhiteNoise's manifest storage, which follows every
    url() in CSS and every sourceMappingURL in JS and stops at one that names no file: a vendored
    script without its map, or a style sheet whose URLs belong to another layout, stops the run
    command on a fresh clone."""
    from django.core.management import call_command

    settings.STATIC_ROOT = tmp_path / "static"
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    call_command("collectstatic", interactive=False, verbosity=0)
    manifest = json.loads((settings.STATIC_ROOT / "staticfiles.json").read_text())
    assert "css/site.css" in manifest["paths"] and "vendor/htmx/htmx.min.js" in manifest["paths"]
