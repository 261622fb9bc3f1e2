"""Narration: espeak-ng speech stored as Ogg/Opus, with a duration, for every guide page."""

import pytest
from django.conf import settings

from course import narration
from course.models import GuidePage
from course.services import narration_generate, narration_record, narration_text

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("language", ["en", "hi", "fr"])
def test_synthesis_writes_an_ogg_opus_file_with_a_duration(tmp_path, language):
    text = {"en": "Gradient accumulation sums gradients.", "hi": "ग्रेडिएंट संचय।", "fr": "Accumulation de gradient."}
    target = tmp_path / f"sample.{language}.ogg"
    seconds = narration.synthesize(text[language], language, target)
    assert seconds > 0.5
    data = target.read_bytes()
    assert data[:4] == b"OggS" and b"OpusHead" in data[:200]


def test_generating_twice_reuses_the_file(synced_content, settings, tmp_path):
    settings.NARRATION_DIR = tmp_path
    page = GuidePage.objects.get(guide__slug="what-is-gradient-accumulation", language="fr")
    page.plain_text = "Un texte court pour le test."
    page.save()
    assert narration_generate(page=page) is True
    page.refresh_from_db()
    assert page.narration_seconds > 0 and (tmp_path / page.narration_file).exists()
    assert narration_generate(page=page) is False


def test_the_set_up_generated_narration_for_every_guide_and_language(synced_content):
    """bin/setup runs generate_narration; every page's current text has its audio file."""
    pages = GuidePage.objects.select_related("guide")
    assert pages.count() == 21  # seven guides in three languages
    for page in pages:
        name = narration.narration_filename(page.guide.slug, page.language, narration_text(page))
        assert (settings.NARRATION_DIR / name).stat().st_size > 10_000, name


def test_the_guide_page_plays_narration_or_falls_back_to_speech_synthesis(client, synced_content):
    page = GuidePage.objects.get(guide__slug="the-accumulation-loop", language="hi")
    html = client.get("/hi/guides/the-accumulation-loop/").content.decode()
    assert "data-speech-fallback" in html  # no file recorded in the test database yet
    narration_record(page, "x.ogg", 125)  # as generate_narration does; it also retires the cached page
    html = client.get("/hi/guides/the-accumulation-loop/").content.decode()
    assert '<audio controls preload="metadata" src="/media/narration/x.ogg"' in html and "2:05" in html
