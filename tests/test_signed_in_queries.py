"""Every page a signed-in learner has makes a small, fixed number of SQL queries, whatever the
learner's data: each page is counted for a learner with one of everything (guides read, quiz
attempts, questions to review, lab runs, runs compared, predictions, API tokens, answers given) and
for one with ten, on a first view with the cache empty and on the next view, and the counts must be
equal. A query per attempt, run or card (an N+1) fails here, whichever page it is on. The pages
are those bench/load.py --signed-in measures, and the few more a learner has."""

import uuid
from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests import factories

# The signing key the certificates are issued with (a session's key, made once).
from tests.certificates.conftest import session_signing_key  # noqa: F401

FEW, MANY = 1, 10
# The most queries each page may make for a learner: on a first view, with every cache empty, and
# on the next view. The dashboard and the course's pages (a guide's too) keep the learner's own in
# the cache (accounts/learner_versions.py), so their next view reads only the session and the user.
MAX_QUERIES = {
    "dashboard": (16, 3),
    "course page": (10, 2),
    "home page": (9, 2),
    "guide list": (9, 2),
    "guide page": (10, 2),
    "quiz index": (4, 4),
    "quiz landing": (6, 6),
    "quiz in progress": (5, 5),
    "quiz result": (7, 7),
    "lab index": (4, 4),
    "preset page": (5, 3),
    "run page": (5, 5),
    "compare page": (6, 6),
    "certificate page": (4, 4),
}


@pytest.fixture(autouse=True)
def no_rate_limits(settings):
    settings.RATELIMIT_ENABLE = False


@pytest.fixture(scope="module")
def learners(guides_synced_for_module, django_db_blocker, session_signing_key):  # noqa: F811
    """The real guides and quizzes, and two learners: one with FEW of everything, one with MANY, in
    the module's transaction (tests/conftest.py's guides_synced_for_module), built once."""
    from quizzes.services import quizzes_sync

    with django_db_blocker.unblock(), override_settings(CERT_KEY_DIR=session_signing_key, RATELIMIT_ENABLE=False):
        quizzes_sync(content_dir=django_settings.BASE_DIR / "content")
        return {FEW: learner_with("few", FEW), MANY: learner_with("many", MANY)}


def learner_with(username: str, count: int) -> dict[str, str]:
    """A learner with `count` of each kind of data, the final exam passed and its certificate
    issued; returns the paths of their pages."""
    from accounts.models import ApiToken
    from certificates.services import certificate_issue
    from course.models import Guide
    from course.services import guide_read
    from labs.explorable_figures import prediction_options, prediction_save, question
    from labs.figures import FIGURES
    from labs.models import LabRun, LabRunCurveChunk
    from labs.presets import PRESETS
    from quizzes.models import Attempt, MissedQuestion, Quiz
    from quizzes.selectors import attempt_url, result_url
    from quizzes.services import attempt_finish, attempt_start

    user = factories.account(username, full_name=username.title())
    owned = Attempt.objects.filter(user=user)
    guides = list(Guide.objects.filter(is_published=True).order_by("order"))
    for guide in guides[:count]:
        guide_read(user=user, guide=guide)
    quizzes = [Quiz.objects.get(guide=guide) for guide in guides]
    finished = []
    for index in range(count):  # each attempt misses its first question: a question to review
        attempt = attempt_start(quiz=quizzes[index % len(quizzes)], user=user, owned=owned, language="en")
        for number in range(1, attempt.total + 1):
            data = factories.wrong_answer(attempt, number) if number == 1 else factories.correct_answer(attempt, number)
            factories.answer_through_services(attempt, number, data)
        finished.append(attempt_finish(attempt=attempt))
    MissedQuestion.objects.filter(user=user).update(due_at=timezone.now() - timedelta(hours=1))  # due today
    in_progress = attempt_start(quiz=quizzes[0], user=user, owned=owned, language="en")
    for number in range(1, min(count, in_progress.total - 1) + 1):
        factories.answer_through_services(in_progress, number, factories.correct_answer(in_progress, number))
    certificate = certificate_issue(attempt=factories.exam_taken_and_passed(user), user=user)

    statuses = ["running", "succeeded", "queued", "failed", "cancelled"]
    runs = [factories.lab_run(user, status=statuses[index % len(statuses)]) for index in range(count)]
    for run in runs[:: len(statuses)]:  # a run still training: its curve is in chunks so far
        LabRunCurveChunk.objects.create(
            run=run, seq=0, last_step=2, points=[{"step": 1, "loss": 2.0}, {"step": 2, "loss": 1.0}]
        )
        LabRun.objects.filter(pk=run.pk).update(done_steps=2)
    slug, preset = next((slug, preset) for slug, preset in PRESETS.items() if len(preset.runs) > 1)
    sweep = [
        factories.finished_run(user, config, preset=slug, index=index)
        for index, (_label, config) in enumerate(preset.configs()[: min(count, len(preset.runs))])
    ]
    if len(sweep) > 1:  # submitted as one sweep, as the preset's button does
        LabRun.objects.filter(pk__in=[run.pk for run in sweep]).update(sweep=uuid.uuid4())
    figures = [(p, name) for p, name in FIGURES if question(p, name) is not None]
    for figure_preset, name in figures[:count]:
        prediction_save(user, figure_preset, name, prediction_options(PRESETS[figure_preset])[0][0])
    for index in range(count):
        ApiToken.issue(user=user, name=f"token {index}")
    return {
        "username": username,
        "dashboard": reverse("accounts:dashboard"),
        "course page": reverse("course:overview"),
        "home page": reverse("course:home"),
        "guide list": reverse("course:guide_index"),
        "guide page": reverse("course:guide_detail", args=[guides[0].slug]),
        "quiz index": reverse("quizzes:index"),
        "quiz landing": reverse("quizzes:quiz", args=[quizzes[0].slug]),
        "quiz in progress": attempt_url(in_progress),
        "quiz result": result_url(finished[-1]),
        "lab index": reverse("labs:index"),
        "preset page": reverse("labs:preset", args=[slug]),
        "run page": reverse("labs:run", args=[runs[0].pk]),
        "compare page": reverse("labs:compare") + "?" + "&".join(f"run={run.share_ref}" for run in runs),
        "certificate page": reverse("certificates:verify", args=[certificate.display_id]),
    }


def queries_of(paths: dict[str, str], page: str) -> tuple[int, int]:
    """The page's queries for this learner: a first view with the cache empty, and the next view."""
    from django.contrib.auth.models import User

    client = Client()
    client.force_login(User.objects.get(username=paths["username"]))
    cache.clear()
    counts = []
    for _view in ("first", "cached"):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(paths[page])
        assert response.status_code == 200, (page, response.status_code)
        counts.append(len(queries))
    return counts[0], counts[1]


@pytest.mark.parametrize("page", list(MAX_QUERIES))
def test_a_signed_in_page_makes_the_same_few_queries_for_one_or_ten_of_everything(
    db,
    learners,
    settings,
    session_signing_key,  # noqa: F811 - the imported fixture
    page,
):
    settings.CERT_KEY_DIR = session_signing_key
    few, many = queries_of(learners[FEW], page), queries_of(learners[MANY], page)
    assert few == many, f"{page}: {few} queries (first view, cached) with {FEW} of everything, {many} with {MANY}"
    assert many[0] <= MAX_QUERIES[page][0] and many[1] <= MAX_QUERIES[page][1], f"{page}: {many} queries"
