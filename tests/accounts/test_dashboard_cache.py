"""The dashboard's sections are cached per learner (accounts/dashboard.py, accounts/learner_versions.py),
and every event that changes what one shows makes the very next dashboard show the new state: the
dashboard is viewed first, so each section is in the cache, then the event, then the dashboard again.
A cached view reads only the session and the user; a cache that cannot be reached changes nothing
the learner sees."""

import re
import shutil

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import ApiToken
from certificates.services import certificate_correct_name, certificate_revoke
from course.models import Guide, GuidePage
from labs.explorable_figures import prediction_options, prediction_save, question
from labs.figures import FIGURES
from labs.models import LabRun
from labs.presets import PRESETS
from quizzes.models import Attempt
from tests import factories

# The quiz and certificate tests' fixtures (found by name): the demo quizzes, a passed final exam,
# and the certificate claimed for it with a session's signing key.
from tests.certificates.conftest import (  # noqa: F401
    passed_exam,
    session_signing_key,
    signing_key_dir,
)
from tests.quizzes.conftest import quiz_content, quizzes, start_attempt, take_quiz  # noqa: F401

DASHBOARD = "/en/accounts/dashboard/"


def section(client, title_id: str, path: str = DASHBOARD) -> str:
    """The HTML of the dashboard's section headed by `title_id`."""
    html = client.get(path).content.decode()
    match = re.search(rf'<section[^>]*aria-labelledby="{title_id}".*?</section>', html, re.S)
    assert match, f"no section {title_id}"
    return match.group(0)


@pytest.fixture
def guides(db):
    guide = Guide.objects.create(slug="what-is-gradient-accumulation", order=1, is_published=True)
    for language in ("en", "hi"):
        GuidePage.objects.create(
            guide=guide, language=language, title=f"What it is ({language})", summary="", body_markdown="", body_html=""
        )
    return guide


def test_a_cached_dashboard_reads_only_the_session_and_the_user(learner_client, guides):
    learner_client.get(DASHBOARD)
    with CaptureQueriesContext(connection) as queries:
        html = learner_client.get(DASHBOARD).content.decode()
    tables = [re.search(r'FROM "(\w+)"', query["sql"]).group(1) for query in queries]
    assert sorted(tables) == ["auth_user", "django_session", "labs_labrun"]  # the lab runs: rendered each time
    assert "What it is (en)" in html and "Asha Verma" in html  # the sections, from the cache


def test_opening_a_guide_shows_on_the_dashboard_at_once(learner_client, guides):
    assert "last opened" not in section(learner_client, "reads-title")
    assert learner_client.get(reverse("course:guide_detail", args=[guides.slug])).status_code == 200
    assert "last opened" in section(learner_client, "reads-title")


def test_a_finished_quiz_shows_in_the_results(learner_client, quizzes, take_quiz):  # noqa: F811
    assert "No quiz taken yet." in section(learner_client, "quiz-results-title")
    attempt = take_quiz(learner_client, "demo-guide")
    results = section(learner_client, "quiz-results-title")
    assert reverse("quizzes:result", args=["demo-guide", attempt.key]) in results
    assert f"({attempt.score_percent}%)" in results


def test_quizzes_taken_before_logging_in_show_once_claimed(client, learner, quizzes, take_quiz):  # noqa: F811
    client.force_login(learner)
    assert "No quiz taken yet." in section(client, "quiz-results-title")
    client.logout()
    attempt = take_quiz(client, "demo-guide")  # signed out, in this browser
    client.force_login(learner)  # a log-in claims this browser's attempts (quizzes/signals.py)
    assert Attempt.objects.get(pk=attempt.pk).user == learner
    assert reverse("quizzes:result", args=["demo-guide", attempt.key]) in section(client, "quiz-results-title")


def test_a_certificate_issued_revoked_and_corrected_shows_each_time(
    learner_client,
    passed_exam,  # noqa: F811 - the imported fixtures
    signing_key_dir,  # noqa: F811
    session_signing_key,  # noqa: F811
):
    from certificates.models import Certificate

    shutil.copytree(session_signing_key, signing_key_dir, dirs_exist_ok=True)

    assert "Pass the final exam to earn a certificate" in section(learner_client, "certificates-title")
    learner_client.get(DASHBOARD)
    claim = learner_client.post(reverse("certificates:claim", args=["final-exam", passed_exam.key]))
    assert claim.status_code == 302
    issued = Certificate.objects.get()
    assert issued.display_id in section(learner_client, "certificates-title")

    replacement = certificate_correct_name(certificate=issued, user=issued.user, name="Asha V. Verma")
    listed = section(learner_client, "certificates-title")
    assert replacement.display_id in listed and "Superseded" in listed
    assert "Hello, Asha V. Verma" in learner_client.get(DASHBOARD).content.decode()  # the greeting's name too

    certificate_revoke(certificate=replacement, reason="A test")
    listed = section(learner_client, "certificates-title")
    assert re.search(rf"{replacement.display_id}.*?Revoked", listed, re.S)


def test_a_new_name_on_the_profile_shows_in_the_greeting(learner_client, learner):
    assert "Hello, Asha Verma" in learner_client.get(DASHBOARD).content.decode()
    assert learner_client.post(reverse("accounts:profile"), {"full_name": "Asha K. Verma"}).status_code == 302
    assert "Hello, Asha K. Verma" in learner_client.get(DASHBOARD).content.decode()


def test_api_tokens_created_used_and_revoked_show_at_once(learner_client, learner):
    assert "api-tokens" not in section(learner_client, "tokens-title")
    assert learner_client.post(reverse("accounts:token_create"), {"name": "laptop"}).status_code == 200
    listed = section(learner_client, "tokens-title")
    assert "laptop" in listed and "last used</span>" not in listed and "last used: —" in listed
    token, raw = ApiToken.issue(user=learner, name="server")
    assert "server" in section(learner_client, "tokens-title")
    assert learner_client.get("/api/labs/runs", headers={"Authorization": f"Bearer {raw}"}).status_code == 200
    used = re.search(r"<li>server .*?last used: ([^<]*)</span>", section(learner_client, "tokens-title"), re.S)
    assert used and used.group(1) != "—"
    learner_client.post(reverse("accounts:token_delete", args=[token.pk]))
    assert "server" not in section(learner_client, "tokens-title")


def test_a_prediction_shows_among_the_learners_predictions(learner_client, learner):
    preset, name = next((p, n) for p, n in FIGURES if question(p, n) is not None)
    assert "None yet." in section(learner_client, "predictions-title")
    prediction_save(learner, preset, name, prediction_options(PRESETS[preset])[0][0])
    listed = section(learner_client, "predictions-title")
    assert "data-prediction" in listed and str(PRESETS[preset].title) in listed


def test_a_lab_runs_new_status_shows_at_once(learner_client, learner):
    run = factories.lab_run(learner, status="queued")
    assert "lab-status-queued" in section(learner_client, "labs-title")
    LabRun.objects.filter(pk=run.pk).update(status="running", done_steps=1)  # as a worker writes it
    assert "lab-status-running" in section(learner_client, "labs-title")


def test_renamed_guides_show_at_once(learner_client, guides):
    assert "What it is (en)" in section(learner_client, "reads-title")
    page = GuidePage.objects.get(guide=guides, language="en")
    page.title = "What accumulation is"
    page.save()  # as a content sync does: the content hash changes (course/page_cache.py)
    assert "What accumulation is" in section(learner_client, "reads-title")


def test_each_learner_and_each_language_has_its_own_sections(client, learner, guides):
    other = factories.other_account()
    client.force_login(learner)
    assert "Hello, Asha Verma" in client.get(DASHBOARD).content.decode()
    assert "What it is (hi)" in section(client, "reads-title", "/hi/accounts/dashboard/")
    assert "What it is (en)" in section(client, "reads-title")
    client.force_login(other)
    html = client.get(DASHBOARD).content.decode()
    assert "Hello, Bilal Khan" in html and "Asha" not in html


def test_without_the_cache_the_dashboard_is_the_same(learner_client, learner, guides, settings):
    learner_client.get(reverse("course:guide_detail", args=[guides.slug]))
    ApiToken.issue(user=learner, name="laptop")
    cached = learner_client.get(DASHBOARD).content.decode()
    settings.CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there, as when Redis has stopped
            "OPTIONS": {"SOCKET_CONNECT_TIMEOUT": 1, "SOCKET_TIMEOUT": 1},
        }
    }
    rendered = learner_client.get(DASHBOARD).content.decode()
    token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"|"X-CSRFToken": "[^"]+"')
    assert token.sub("", rendered) == token.sub("", cached)
    assert "last opened" in rendered and "laptop" in rendered
