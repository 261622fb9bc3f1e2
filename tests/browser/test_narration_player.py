"""The guide page's players in Chromium: the spoken summary comes first, the full narration has a
chapter per section, and a section link in the table of contents plays it from that section."""

import math

import pytest

from tests import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GUIDE = "normalization-and-accumulation"


@pytest.fixture
def narrated(course_site, settings):
    """Real espeak-ng recordings, as generate_narration makes them, but of the section titles only
    (a second each) so that the test takes no time to synthesize."""
    page, files = factories.french_narration_recorded(GUIDE, "player-test")
    yield page
    for file in files:
        file.unlink(missing_ok=True)


def test_the_summary_plays_first_and_a_section_link_jumps_into_the_full_narration(
    page, live_server, narrated, screenshot
):
    response = page.goto(f"{live_server.url}/fr/guides/{GUIDE}/")
    assert response.status == 200
    players = page.locator(".listen audio")
    assert players.count() == 2
    assert players.nth(0).get_attribute("src").endswith(narrated.summary_audio_file)
    assert players.nth(1).get_attribute("id") == "narration-full"

    # Every h2 of the table of contents has its "listen from here" link; one plays from its chapter.
    chapter = narrated.narration_chapters[3]
    assert page.locator(".toc a.toc-audio").count() == len(narrated.toc)
    page.locator(f".toc a[href='#{chapter['id']}'] + a.toc-audio").click()
    page.wait_for_function(
        "start => { const a = document.getElementById('narration-full'); return !a.paused && a.currentTime >= start; }",
        arg=chapter["start"],
    )
    assert page.url.endswith(f"/fr/guides/{GUIDE}/")  # JavaScript played it in place

    # The chapters track and the player's own list of sections.
    track = page.evaluate("fetch(document.querySelector('#narration-full track').src).then(r => r.text())")
    assert track.startswith("WEBVTT") and chapter["title"] in track
    page.locator(".listen details.chapters summary").click()
    assert page.locator(".listen details.chapters li").count() == len(narrated.narration_chapters)
    screenshot(page, "guide-narration-players-fr")

    # Starting the summary pauses the full narration: one voice at a time.
    page.evaluate("document.querySelector('audio[data-narration=summary]').play()")
    page.wait_for_function("document.getElementById('narration-full').paused")


def test_without_javascript_a_section_link_opens_the_audio_at_that_time(browser, live_server, narrated):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server.url}/fr/guides/{GUIDE}/")
    link = page.locator(".toc a.toc-audio").nth(2)
    href = link.get_attribute("href")
    assert href == f"/media/narration/{narrated.narration_file}#t={narrated.narration_chapters[2]['start']:.1f}"
    response = page.request.get(f"{live_server.url}{href.split('#')[0]}")
    assert response.status == 200 and response.body()[:4] == b"OggS"
    context.close()


def test_the_player_knows_the_duration_and_seeks_with_byte_ranges(page, live_server, narrated, screenshot):
    """Chromium reads an Ogg file's duration from its end and seeks by asking for byte ranges:
    without 206 answers it shows no duration (Infinity) and cannot jump."""
    answers = []
    page.on(
        "response", lambda r: answers.append((r.status, r.headers.get("content-range"))) if ".ogg" in r.url else None
    )
    page.goto(f"{live_server.url}/fr/guides/{GUIDE}/", wait_until="networkidle")
    # Nothing of the audio loads before the learner asks (preload="none"): the page's own files first.
    assert answers == []
    assert page.locator(".listen audio[preload=none]").count() == 2
    audio = page.locator("#narration-full")
    duration = audio.evaluate(
        """audio => new Promise(resolve => {
            audio.addEventListener('loadedmetadata', () => resolve(audio.duration), {once: true});
            audio.addEventListener('error', () => resolve('error ' + audio.error.code), {once: true});
            audio.muted = true;
            audio.play().then(() => audio.pause());  // what the play button does
        })"""
    )
    assert isinstance(duration, float) and math.isfinite(duration)  # without ranges it is Infinity
    assert abs(duration - narrated.narration_seconds) < 0.5
    assert audio.evaluate("a => a.seekable.length === 1 && a.seekable.end(0)") == pytest.approx(duration, abs=0.1)

    target = round(duration - 0.6, 1)  # near the end: bytes the browser has not read yet
    landed = audio.evaluate(
        """(audio, target) => new Promise(resolve => {
            audio.addEventListener('seeked', () => resolve(audio.currentTime), {once: true});
            audio.currentTime = target;
        })""",
        target,
    )
    assert landed == pytest.approx(target, abs=0.05)
    assert any(status == 206 and (content_range or "").startswith("bytes ") for status, content_range in answers)

    # A chapter in the player's own list jumps there.
    chapter = narrated.narration_chapters[-1]
    page.locator(".listen details.chapters summary").click()
    page.locator(f".listen details.chapters a[data-chapter-start='{chapter['start']:.1f}']").click()
    page.wait_for_function(
        "start => { const a = document.getElementById('narration-full'); return a.currentTime >= start; }",
        arg=chapter["start"],
    )
    screenshot(page, "guide-narration-seek-fr")
