"""Dates are written one way per language, day, month name and year ("7 Dec 2026", "7 दिसंबर 2026",
"7 déc. 2026"), on every page that shows one: never as numbers only, where 12/07/2026 is 7 December
to some readers and 12 July to others (config/formats/<lang>/formats.py)."""

import re
from datetime import UTC, date, datetime

import pytest
from django.urls import reverse
from django.utils import formats, translation

from accounts.models import ApiToken
from certificates.services import certificate_revoke
from course.models import Guide, GuidePage, GuideRead
from labs.models import LabRun
from quizzes.models import Attempt
from tests import factories

# The certificate tests' fixtures (found by name): a learner's exam, passed and claimed.
from tests.certificates.conftest import (  # noqa: F401
    certificate,
    english_by_default,
    helpers,
    passed_exam,
    quiz_content,
    quizzes,
    session_signing_key,
    signing_key_dir,
    start_attempt,
    take_quiz,
)

MOMENT = datetime(2026, 12, 7, 9, 5, tzinfo=UTC)  # the 7th of the 12th month: either order reads as a date
WRITTEN = {"en": "7 Dec 2026", "hi": "7 दिसंबर 2026", "fr": "7 déc. 2026"}
LANGUAGES = list(WRITTEN)
# Day, month and year in numbers, in any order or separator: 07/12/2026, 12-07-2026, 7.12.26.
NUMERIC_DATE = re.compile(r"(?<![\d.])\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}(?![\d.])")


def visible_text(html: str) -> str:
    """What a reader sees: no tags (a <time datetime> attribute is for machines), no scripts."""
    return re.sub(r"<script.*?</script>|<[^>]+>", " ", html, flags=re.S)


def section(html: str, title_id: str) -> str:
    return html.split(f'id="{title_id}"')[1].split("</section>")[0]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_language_writes_a_date_with_its_month_name_in_one_form(language):
    with translation.override(language):
        for name in ("DATE_FORMAT", "SHORT_DATE_FORMAT"):
            assert formats.date_format(MOMENT, name) == WRITTEN[language]
        for name in ("DATETIME_FORMAT", "SHORT_DATETIME_FORMAT"):
            assert formats.date_format(MOMENT, name) == f"{WRITTEN[language]}, 09:05 UTC"
        # What the verification page's script writes, from the names the page gives it.
        from config.formats import month_names

        names = month_names()
        for month in range(1, 13):
            day = date(2026, month, 7)
            assert formats.date_format(day, "DATE_FORMAT") == f"7 {names[month - 1]} 2026"
            assert not NUMERIC_DATE.search(formats.date_format(day, "SHORT_DATE_FORMAT"))


@pytest.fixture
def dated(learner, certificate, passed_exam):  # noqa: F811  (the imported fixtures)
    """A learner with something dated in every app: a guide read, a finished exam and its
    certificate, a lab run, an API token used; all on MOMENT."""
    guide = Guide.objects.create(slug="what-is-gradient-accumulation", order=1, is_published=True)
    for language in LANGUAGES:
        GuidePage.objects.create(guide=guide, language=language, title="T", summary="", body_markdown="", body_html="")
    GuideRead.objects.create(user=learner, guide=guide)
    GuideRead.objects.update(last_read_at=MOMENT)
    factories.lab_run(learner, status=LabRun.Status.SUCCEEDED)
    LabRun.objects.update(created_at=MOMENT, finished_at=MOMENT)
    token, _raw = ApiToken.issue(user=learner, name="laptop")
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=MOMENT)
    Attempt.objects.filter(pk=passed_exam.pk).update(finished_at=MOMENT)
    type(certificate).objects.filter(pk=certificate.pk).update(issued_at=MOMENT)
    return certificate


def assert_written_as_words(html: str, language: str, times: int) -> None:
    text = visible_text(html)
    assert not NUMERIC_DATE.search(text), NUMERIC_DATE.search(text).group()
    assert text.count(WRITTEN[language]) >= times, (WRITTEN[language], text)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_dashboard_writes_every_date_in_words(learner_client, dated, language):
    with translation.override(language):
        html = learner_client.get(reverse("accounts:dashboard")).content.decode()
    assert_written_as_words(html, language, times=4)
    for title in ("reads-title", "certificates-title", "labs-title", "tokens-title"):
        assert WRITTEN[language] in visible_text(section(html, title)), title


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_certificate_page_writes_its_issue_and_revocation_dates_in_words(learner_client, dated, language):
    certificate_revoke(certificate=dated, reason="Exam taken by someone else.", now=MOMENT)
    with translation.override(language):
        html = learner_client.get(reverse("certificates:verify", args=[dated.display_id])).content.decode()
    assert_written_as_words(html, language, times=2)  # issued on, revoked on


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_exam_page_dates_its_attempts_in_words(learner_client, dated, language):
    with translation.override(language):
        html = learner_client.get(reverse("quizzes:quiz", args=["final-exam"])).content.decode()
    assert_written_as_words(html, language, times=1)
    assert f"{WRITTEN[language]}, 09:05 UTC" in visible_text(section(html, "past-title"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_labs_pages_date_runs_in_words(learner_client, dated, language):
    reference = factories.reference_sweep("memory-vs-n")
    LabRun.objects.filter(pk__in=[run.pk for run in reference]).update(finished_at=MOMENT)
    with translation.override(language):
        index = learner_client.get(reverse("labs:index")).content.decode()
        preset = learner_client.get(reverse("labs:preset", args=["memory-vs-n"])).content.decode()
    assert_written_as_words(index, language, times=1)  # the list of the learner's runs
    assert f"{WRITTEN[language]}, 09:05 UTC" in visible_text(section(index, "runs-title"))
    assert_written_as_words(preset, language, times=1)  # when the reference runs finished
