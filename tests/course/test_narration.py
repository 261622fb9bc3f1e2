"""Narration: a spoken summary (1.5 to 3 minutes) and the full page with a chapter per h2 section,
espeak-ng speech stored as Ogg/Opus, for every guide page."""

import itertools

import pytest
from django.conf import settings

from course import narration
from course.content import ContentError, load_all_guides, load_spoken_summary
from course.models import GuidePage
from course.services import (
    narration_generate,
    narration_record,
    narration_sections,
    narration_store,
    summary_text,
)

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
LANGUAGES = ["en", "hi", "fr"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_synthesis_writes_an_ogg_opus_file_with_a_duration(tmp_path, language):
    text = {"en": "Gradient accumulation sums gradients.", "hi": "ग्रेडिएंट संचय।", "fr": "Accumulation de gradient."}
    target = tmp_path / f"sample.{language}.ogg"
    seconds = narration.synthesize(text[language], language, target)
    assert seconds > 0.5
    data = target.read_bytes()
    assert data[:4] == b"OggS" and b"OpusHead" in data[:200]
    assert narration.ogg_seconds(target) == pytest.approx(seconds, abs=0.1)


def test_chapters_start_where_the_previous_sections_audio_ends(tmp_path):
    texts = ["First section, said briefly.", "A second, longer section with a few more words in it.", "Third."]
    marks = narration.synthesize_chapters(texts, "en", tmp_path / "full.ogg")
    alone = [narration.synthesize(text, "en", tmp_path / f"{i}.ogg") for i, text in enumerate(texts)]
    assert marks[0] == 0
    assert marks[1] == pytest.approx(alone[0], abs=0.01)
    assert marks[2] == pytest.approx(alone[0] + alone[1], abs=0.01)
    assert narration.ogg_seconds(tmp_path / "full.ogg") == pytest.approx(marks[3], abs=0.1)


def test_a_chapters_track_round_trips(tmp_path):
    chapters = [{"id": "overview", "title": "Overview", "start": 0.0}, {"id": "faq", "title": "FAQ", "start": 3725.4}]
    narration.write_chapters_vtt(chapters, 3800.0, tmp_path / "x.vtt")
    text = (tmp_path / "x.vtt").read_text()
    assert text.startswith("WEBVTT\n") and "01:02:05.400 --> 01:03:20.000\nFAQ" in text
    assert narration.read_chapters_vtt(tmp_path / "x.vtt") == [(0.0, "Overview"), (3725.4, "FAQ")]


def test_the_full_narration_has_one_chapter_per_section_without_code_or_formulas(synced_content):
    page = GuidePage.objects.get(guide__slug="the-accumulation-loop", language="en")
    sections = narration_sections(page)
    assert [s["id"] for s in sections] == [entry["id"] for entry in page.toc]
    assert sections[0]["text"].startswith(page.title) and page.summary in sections[0]["text"]
    assert all(s["text"].startswith(s["title"]) for s in sections[1:])
    spoken = " ".join(s["text"] for s in sections)
    assert "enumerate(loader)" not in spoken and "$" not in spoken  # code blocks and formulas left out


def test_generating_twice_reuses_the_files(synced_content, settings, tmp_path):
    settings.NARRATION_DIR = tmp_path
    page = GuidePage.objects.get(guide__slug="what-is-gradient-accumulation", language="fr")
    page.body_html = '<h2 id="overview">Aperçu</h2><p>Un texte court.</p><h2 id="faq">FAQ</h2><p>Une réponse.</p>'
    page.toc = [{"id": "overview", "title": "Aperçu", "children": []}, {"id": "faq", "title": "FAQ", "children": []}]
    page.spoken_summary = "Un résumé court pour le test."
    page.save()
    assert narration_generate(page=page) is True
    page.refresh_from_db()
    assert page.narration_seconds > 0 and (tmp_path / page.narration_file).exists()
    assert page.summary_audio_seconds > 0 and (tmp_path / page.summary_audio_file).exists()
    assert [c["id"] for c in page.narration_chapters] == ["overview", "faq"]
    assert page.narration_chapters[0]["start"] == 0 < page.narration_chapters[1]["start"] < page.narration_seconds
    assert narration_generate(page=page) is False
    # A new summary text replaces the summary's file only; the old one is removed.
    old_summary, old_full = page.summary_audio_file, page.narration_file
    page.spoken_summary = "Un autre résumé."
    assert narration_generate(page=page) is True
    assert page.narration_file == old_full and page.summary_audio_file != old_summary
    assert not (tmp_path / old_summary).exists() and (tmp_path / page.summary_audio_file).exists()


def test_a_missing_or_badly_sized_spoken_summary_is_refused(tmp_path):
    with pytest.raises(ContentError, match="missing the spoken summary"):
        load_spoken_summary(tmp_path / "summary.fr.txt", "fr")
    (tmp_path / "summary.en.txt").write_text("Far too short. " * 10)
    with pytest.raises(ContentError, match=r"1\.5 to 3 minutes.*0\.2 minutes"):
        load_spoken_summary(tmp_path / "summary.en.txt", "en")
    (tmp_path / "summary.en.txt").write_text("word " * 600)
    with pytest.raises(ContentError, match=r"3\.6 minutes"):
        load_spoken_summary(tmp_path / "summary.en.txt", "en")


def test_every_guide_has_a_spoken_summary_of_one_and_a_half_to_three_minutes():
    guides = load_all_guides(settings.CONTENT_DIR, LANGUAGES)
    assert len(guides) == 7
    low, high = narration.SUMMARY_SECONDS
    for slug, sources in guides.items():
        for language, source in sources.items():
            assert low <= narration.spoken_seconds(source.spoken_summary, language) <= high, (slug, language)
            assert "```" not in source.spoken_summary and "$" not in source.spoken_summary, (slug, language)


def test_every_page_is_spoken_with_a_summary_of_its_length_and_a_chapter_per_section(synced_content, tmp_path):
    """What generate_narration (run by bin/setup for the run command) speaks for every guide and
    language: the summary lasts 1.5 to 3 minutes as spoken, and the full narration has a chapter per
    h2 section. espeak-ng alone, into WAV: the Opus encoding, most of the set-up's CPU, is the same
    for any text and is tested above."""
    pages = GuidePage.objects.select_related("guide")
    assert pages.count() == 21  # seven guides in three languages
    low, high = narration.SUMMARY_SECONDS
    for page in pages:
        folder = tmp_path / f"{page.guide.slug}-{page.language}"
        (folder / "summary").mkdir(parents=True)
        summary = narration.speak_chapters([summary_text(page)], page.language, folder / "summary")[0][-1]
        assert low <= summary <= high + 10, page  # + the title, said first
        sections = narration_sections(page)
        (folder / "full").mkdir()
        marks, whole = narration.speak_chapters([s["text"] for s in sections], page.language, folder / "full")
        assert [s["title"] for s in sections] == [entry["title"] for entry in page.toc], page
        assert len(marks) == len(sections) + 1 and marks[0] == 0, page
        assert all(a < b for a, b in itertools.pairwise(marks)), page  # every section says something
        assert narration.wav_seconds(whole) == pytest.approx(marks[-1], abs=0.01), page


def test_the_guide_page_offers_the_summary_first_then_the_chaptered_narration(client, synced_content):
    page = GuidePage.objects.get(guide__slug="the-accumulation-loop", language="hi")
    html = client.get("/hi/guides/the-accumulation-loop/").content.decode()
    assert "data-speech-fallback" in html  # no file recorded in the test database yet
    chapters = [{"id": e["id"], "title": e["title"], "start": 60.0 * i} for i, e in enumerate(page.toc)]
    narration_record(page, "x.full.ogg", 1025, chapters)  # as generate_narration does; retires the cached page
    narration_store(page, {"summary_audio_file": "x.summary.ogg", "summary_audio_seconds": 125})
    html = client.get("/hi/guides/the-accumulation-loop/").content.decode()
    summary_player = html.index('<audio controls preload="none" src="/media/narration/x.summary.ogg"')
    full_player = html.index('<audio id="narration-full" controls preload="none" src="/media/narration/x.full.ogg"')
    assert summary_player < full_player and "2:05" in html and "17:05" in html
    assert '<track kind="chapters" src="/media/narration/x.full.vtt"' in html
    # Each section: a link in the player's list and one in the table of contents, both at its start.
    second = page.toc[1]
    link = 'href="/media/narration/x.full.ogg#t=60.0" data-chapter-start="60.0"'
    assert html.count(link) == 2 and html.index(link) > full_player
    assert html.count('class="toc-audio"') == len(page.toc)
    assert f"{second['title']}</a>" in html
    assert "data-speech-fallback" not in html


def test_summary_text_starts_with_the_title(synced_content):
    page = GuidePage.objects.get(guide__slug="do-you-need-a-bigger-batch", language="fr")
    assert summary_text(page).startswith(f"{page.title}.\n") and page.spoken_summary in summary_text(page)
