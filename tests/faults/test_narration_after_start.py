"""The run command serves the guides before their narration exists, and records it afterwards.

The real supervisord with the run command's config starts on a database holding one short guide
page and no audio. The test holds the narration lock (`$STATE_DIR/narration.lock`, the one a second
recording program would wait on), so the `narration` program is known to be still at work while the
page is checked, whatever the machine's speed; then it lets go and waits for the players.
"""

import fcntl
import subprocess

import pytest
import requests

from course.models import Guide, GuidePage
from tests.faults.conftest import ROOT, RunCommand
from tests.polling import wait_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SLUG = "narrated-after-start"
RECORDING = "The narration of this guide is being recorded"


@pytest.fixture
def short_guide(transactional_db):
    guide = Guide.objects.create(slug=SLUG, order=1)
    body = '<p>Accumulate, then step.</p><h2 id="why">Why</h2><p>Memory.</p><h2 id="how">How</h2><p>Divide by N.</p>'
    return GuidePage.objects.create(
        guide=guide,
        language="en",
        title="Narrated after start",
        summary="A guide short enough to speak in seconds.",
        body_markdown="(rendered below)",
        body_html=body,
        toc=[{"id": "why", "title": "Why", "level": 2}, {"id": "how", "title": "How", "level": 2}],
        plain_text="Accumulate, then step. Why Memory. How Divide by N.",
        word_count=9,
        source_hash="short",
        spoken_summary="Gradient accumulation adds the gradients of several micro-batches before one step.",
    )


@pytest.fixture
def stack(tmp_path, site_env):
    stack = RunCommand(tmp_path)
    yield stack, lambda **env: site_env(**{**env, "NARRATION_ON_START": "true"})
    stack.stop()


def test_pages_are_served_while_the_narration_is_recorded_and_the_players_appear_once_it_is_done(short_guide, stack):
    stack, env_for = stack
    stack.state_dir.mkdir()
    url = None
    with open(stack.state_dir / "narration.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another recording program is at work: this one must wait
        stack.start(env_for)
        url = f"{stack.base_url}/en/guides/{SLUG}/"
        page = wait_for(lambda: _page_saying(url, RECORDING), 90, "the page to say its narration is being recorded")
        assert "<audio" not in page  # never a player without its audio
        assert 'data-speech-fallback="#guide-body"' in page  # the browser's own voice meanwhile
        assert stack.info("narration")["statename"] == "RUNNING"

    page = wait_for(lambda: _page_with_players(url), 180, "both recordings to appear on the page")
    assert RECORDING not in page
    assert 'preload="none"' in page  # nothing downloads before the learner presses play
    wait_for(lambda: stack.info("narration")["statename"] == "EXITED", 60, "the narration program to finish")
    assert stack.info("narration")["exitstatus"] == 0
    short_guide.refresh_from_db()
    audio = requests.get(f"{stack.base_url}{short_guide.narration_url}", timeout=30)
    assert audio.status_code == 200 and audio.content[:4] == b"OggS"
    assert short_guide.narration_seconds > 0 and [c["id"] for c in short_guide.narration_chapters] == ["why", "how"]

    # The run command started again records nothing: what is done is skipped.
    again = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "manage.py", "generate_narration", "--if-enabled"],
        cwd=ROOT,
        env=stack.env | {"NARRATION_ON_START": "true"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert "every recording is up to date" in again.stdout
    assert not stack.server_errors()


def _page_saying(url: str, text: str) -> str | None:
    page = requests.get(url, timeout=30).text
    return page if text in page else None


def _page_with_players(url: str) -> str | None:
    page = requests.get(url, timeout=30).text
    return page if page.count("<audio") == 2 else None
