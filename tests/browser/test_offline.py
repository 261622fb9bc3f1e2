"""Offline reading (course/offline.py, templates/course/service_worker.js): a learner opens a guide,
saves the course for offline reading, loses the connection and still reads that guide and another
one they saved, with the quiet "offline" mark; a quiz says it needs a connection; after a content
sync, the saved guide shows the new text once the learner has been online again."""

import shutil

import pytest
from playwright.sync_api import expect

from tests import factories
from tests.polling import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OPENED = "what-is-gradient-accumulation"
SAVED = "the-accumulation-loop"
NEW_SENTENCE = "This sentence was added after the guide was saved."

# The worker's caches of pages (one per content version) and whether `url` is in one of them.
PAGE_CACHES = "async () => (await caches.keys()).filter((name) => name.startsWith('course-pages-'))"
KEPT = """async (url) => {
  for (const name of await caches.keys()) {
    if (name.startsWith('course-pages-') && await (await caches.open(name)).match(url, {ignoreVary: true})) return true;
  }
  return false;
}"""


def page_caches(page) -> list[str]:
    return page.evaluate(PAGE_CACHES)


def wait_until_kept(page, url: str) -> None:
    wait_for(lambda: page.evaluate(KEPT, url), 60, f"the worker to keep {url}")


def test_saved_guides_read_offline_a_quiz_needs_a_connection_and_a_sync_replaces_the_copy(
    new_page, live_server, settings, tmp_path, screenshot
):
    from course.services import guides_sync

    guides_sync()
    page = new_page(phone=True, service_workers="allow")
    context = page.context
    opened_url = f"{live_server.url}/en/guides/{OPENED}/"
    saved_url = f"{live_server.url}/en/guides/{SAVED}/"

    # A guide opened online is kept (the worker, registered once the page is idle, keeps this first one too).
    page.goto(opened_url)
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    wait_until_kept(page, opened_url)

    # "Save for offline" on the course page stores all seven guides and says how much.
    page.goto(f"{live_server.url}/en/course/")
    save = page.locator("[data-offline-save]")
    expect(save).to_be_visible()
    save.get_by_role("button", name="Save for offline").click()
    status = save.locator("[data-offline-status]")
    expect(status).to_contain_text("Saved for offline reading: all 7 guides", timeout=60_000)
    expect(status).to_contain_text(" MB on this device.")
    assert int(save.get_attribute("data-saved-bytes")) > 100_000  # seven guide pages and the site's files
    wait_until_kept(page, saved_url)
    [old_cache] = page_caches(page)

    # Offline: both guides open from the store, marked so, with their formulas, figures and code.
    context.set_offline(True)
    for url in (opened_url, saved_url):
        page.goto(url)
        expect(page.locator("h1")).to_be_visible()
        expect(page.locator("#offline-mark")).to_be_visible()
        expect(page.locator("#offline-mark")).to_have_text("Offline: you are reading the copy saved on this device.")
        assert page.locator("#guide-body math").count() > 0
        assert page.locator("#guide-body pre").count() > 0
        assert page.locator("#guide-body .explorable, #guide-body svg").count() > 0
    expect(page.locator("#guide-body")).not_to_contain_text(NEW_SENTENCE)
    screenshot(page, "offline-guide-en")

    # A quiz needs the server: the "needs a connection" page, never the browser's error page.
    page.goto(f"{live_server.url}/en/quizzes/{SAVED}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("This page needs a connection")
    expect(page.get_by_role("link", name="Go to the guides")).to_be_visible()
    page.goto(f"{live_server.url}/hi/quizzes/{SAVED}/")  # in the learner's language
    expect(page.get_by_role("heading", level=1)).to_have_text("इस पेज के लिए इंटरनेट कनेक्शन चाहिए")
    screenshot(page, "offline-needs-connection-hi")

    # A new deployment's content: the guide saved (not opened since) changes.
    content = tmp_path / "content"
    shutil.copytree(settings.CONTENT_DIR, content)
    source = content / "guides" / SAVED / "en.md"
    text = source.read_text("utf-8")
    heading_end = text.index("\n", text.index("\n## ") + 1)
    overview_end = text.index("\n\n", heading_end + 2)  # the end of the overview's first paragraph
    source.write_text(text[:overview_end] + f" {NEW_SENTENCE}" + text[overview_end:], "utf-8")
    guides_sync(content_dir=content)

    # Online again, the learner opens another page; the new worker fetches the saved pages again.
    context.set_offline(False)
    page.goto(opened_url)
    new_worker = lambda: len(caches := page_caches(page)) == 1 and caches != [old_cache]  # noqa: E731
    wait_for(new_worker, 60, "the new content's worker to replace the stored pages")
    context.set_offline(True)
    page.goto(saved_url)  # offline, not opened since the sync: the stored copy is the new text
    expect(page.locator("#offline-mark")).to_be_visible()
    expect(page.locator("#guide-body")).to_contain_text(NEW_SENTENCE)

    context.set_offline(False)
    page.goto(saved_url)  # online: from the network, unmarked
    expect(page.locator("#guide-body")).to_contain_text(NEW_SENTENCE)
    expect(page.locator("#offline-mark")).to_be_hidden()


NARRATED = "normalization-and-accumulation"
NARRATION_CACHE = "async () => (await (await caches.open('course-narration')).keys()).map((r) => r.url)"


@pytest.fixture
def narrated(course_site, settings):
    """Real espeak-ng recordings of one French guide (its section titles only: a second each)."""
    page, files = factories.french_narration_recorded(NARRATED, "offline-test")
    yield page
    for file in files:
        file.unlink(missing_ok=True)


def test_narration_is_stored_only_when_asked_and_then_plays_offline(new_page, live_server, narrated):
    page = new_page(service_workers="allow")
    page.goto(f"{live_server.url}/fr/course/")
    page.evaluate("() => navigator.serviceWorker.ready.then(() => true)")
    save = page.locator("[data-offline-save]")
    status = save.locator("[data-offline-status]")
    button = save.get_by_role("button", name="Enregistrer pour lire hors ligne")

    button.click()  # the guides only
    expect(status).to_contain_text("Enregistrés pour la lecture hors ligne", timeout=60_000)
    guides_only = int(save.get_attribute("data-saved-bytes"))
    assert page.evaluate(NARRATION_CACHE) == []

    checkbox = save.get_by_role("checkbox")
    expect(checkbox.locator("xpath=..")).to_contain_text("Enregistrer aussi la version audio (")
    checkbox.check()
    status.evaluate("node => { node.textContent = ''; }")
    button.click()
    expect(status).to_contain_text("Enregistrés pour la lecture hors ligne", timeout=60_000)
    stored = sorted(url.rsplit("/", 1)[1] for url in page.evaluate(NARRATION_CACHE))
    assert stored == sorted(
        [narrated.narration_file, narrated.narration_file.removesuffix(".ogg") + ".vtt", narrated.summary_audio_file]
    )
    assert int(save.get_attribute("data-saved-bytes")) > guides_only

    page.context.set_offline(True)
    page.goto(f"{live_server.url}/fr/guides/{NARRATED}/")
    expect(page.locator("#offline-mark")).to_be_visible()
    audio = page.locator("#narration-full")
    duration = audio.evaluate(
        """audio => new Promise(resolve => {
            audio.addEventListener('loadedmetadata', () => resolve(audio.duration), {once: true});
            audio.addEventListener('error', () => resolve('error ' + audio.error.code), {once: true});
            audio.muted = true;
            audio.play().then(() => audio.pause());
        })"""
    )
    assert duration == pytest.approx(narrated.narration_seconds, abs=0.5)  # read from the store, offline
    target = round(duration - 0.6, 1)
    landed = audio.evaluate(
        """(audio, target) => new Promise(resolve => {
            audio.addEventListener('seeked', () => resolve(audio.currentTime), {once: true});
            audio.currentTime = target;
        })""",
        target,
    )
    assert landed == pytest.approx(target, abs=0.05)  # seeking: byte ranges answered from the store
    page.context.set_offline(False)
