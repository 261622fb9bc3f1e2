"""Django's own phrases that the site would show and that Django's Hindi catalog leaves out."""

import re
from datetime import timedelta
from pathlib import Path

from django.conf import settings
from django.utils import timezone, translation
from django.utils.timesince import timeuntil

ROOT = Path(settings.BASE_DIR)
APPS = ("config", "accounts", "course", "quizzes", "certificates", "labs")
SOURCES = [*ROOT.glob("templates/**/*.html"), *(path for app in APPS for path in (ROOT / app).rglob("*.py"))]
DURATION_FILTER = re.compile(r"\|\s*time(?:until|since)\b|\btime(?:until|since)\(")


def test_djangos_durations_have_no_hindi_so_no_page_uses_them():
    """timeuntil and timesince write "22 minutes" on a Hindi page (Django ships no Hindi for them):
    a wait is said with config/waits.py's wait_in_words, translated in locale/."""
    with translation.override("hi"):
        assert "minute" in timeuntil(timezone.now() + timedelta(minutes=22, seconds=30))  # still English
    users = [path for path in SOURCES if DURATION_FILTER.search(path.read_text(encoding="utf-8"))]
    assert users == []
