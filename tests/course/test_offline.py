"""The installable app and offline reading, as the server gives them (course/offline.py): the
service worker at the site's root, carrying the content hash; the manifest in each language; the
translated "needs a connection" page; and the "Save for offline" control with what it stores."""

import json

import pytest

from course.models import GuidePage

pytestmark = pytest.mark.django_db


def test_the_service_worker_is_served_from_the_root_and_changes_with_the_content(client, synced_content):
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    assert "script-src 'self'" in response["Content-Security-Policy"]  # importScripts: our own files only
    script = response.content.decode()
    config = json.loads(script.split("const CONFIG = ", 1)[1].split(";\n", 1)[0])
    assert config["offline_pages"] == ["/en/offline/", "/hi/offline/", "/fr/offline/"]
    assert all(url.startswith("/static/vendor/workbox/") for url in config["workbox"])
    page = GuidePage.objects.get(language="en", guide__slug="the-accumulation-loop")
    page.source_hash = "changed by a new deployment"
    page.save()  # the page cache forgets its content hash (page_cache.pages_changed)
    changed = json.loads(client.get("/sw.js").content.decode().split("const CONFIG = ", 1)[1].split(";\n", 1)[0])
    assert changed["version"] != config["version"]  # a new worker, which fetches the saved pages again


@pytest.mark.parametrize(("language", "name"), [("en", "Gradient Accumulation Course"), ("fr", "Cours")])
def test_the_manifest_installs_the_course_in_its_language(client, language, name):
    response = client.get(f"/{language}/manifest.webmanifest")
    assert response["Content-Type"] == "application/manifest+json"
    manifest = json.loads(response.content)
    assert name in manifest["name"] and manifest["lang"] == language
    assert manifest["start_url"] == f"/{language}/" and manifest["scope"] == "/"
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in manifest["icons"]}
    for icon in manifest["icons"]:
        assert client.get(icon["src"]).status_code == 200


@pytest.mark.parametrize(
    ("language", "heading"),
    [
        ("en", "This page needs a connection"),
        ("hi", "इस पेज के लिए इंटरनेट कनेक्शन चाहिए"),
        ("fr", "Cette page a besoin d’une connexion"),
    ],
)
def test_the_needs_a_connection_page_is_translated(client, language, heading):
    html = client.get(f"/{language}/offline/").content.decode()
    assert f'<h1 id="offline-title">{heading}</h1>' in html
    assert '<meta name="robots" content="noindex">' in html  # a stand-in, not a page to find


def test_save_for_offline_lists_the_guides_and_the_narration_with_its_size(client, synced_content, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    page = GuidePage.objects.get(language="fr", guide__order=2)
    (tmp_path / "narration").mkdir()
    (tmp_path / "narration" / "loop.fr.ogg").write_bytes(b"\0" * 2_500_000)
    page.narration_file = "loop.fr.ogg"
    page.save()
    for path in ("/fr/course/", f"/fr/guides/{page.guide.slug}/"):
        html = client.get(path).content.decode()
        box = html.split("data-offline-save", 1)[1].split("</section>", 1)[0]
        pages = json.loads(box.split('data-pages="', 1)[1].split('"', 1)[0].replace("&quot;", '"'))
        assert pages[:3] == ["/fr/", "/fr/course/", "/fr/guides/"] and len(pages) == 3 + 7
        assert all(url.startswith("/fr/guides/") for url in pages[3:])
        assert "Gardez les 7 guides sur cet appareil" in box
        assert "/media/narration/loop.fr.ogg" in box
        assert "Enregistrer aussi la version audio (2,4\xa0Mio)" in box  # Django's binary units
