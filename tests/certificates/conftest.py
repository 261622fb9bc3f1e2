"""Certificate fixtures: throw-away signing keys, a passed final exam, and the certificate claimed for it."""

import shutil

import pytest
from django.urls import reverse

from tests import factories

# The quiz tests' own fixtures (found by name): the demo quizzes, and take_quiz for the tests that
# take an exam through its pages.
from tests.quizzes.conftest import (  # noqa: F401
    english_by_default,
    helpers,
    quiz_content,
    quizzes,
    start_attempt,
    take_quiz,
)


@pytest.fixture(autouse=True)
def signing_key_dir(settings, tmp_path):
    """Certificates in tests are signed with throw-away keys, never the site's."""
    settings.CERT_KEY_DIR = tmp_path / "keys"
    return settings.CERT_KEY_DIR


@pytest.fixture
def passed_exam(learner, quizzes):  # noqa: F811  (the imported fixture)
    """The learner's passed final exam, answered through the quiz services: the certificate tests
    start from the passed attempt, and the quiz tests take exams through the pages themselves
    (answering 15 questions page by page took most of each certificate test's time)."""
    return factories.exam_taken_and_passed(learner)


@pytest.fixture(scope="session")
def session_signing_key(tmp_path_factory):
    """One signing key the site's own code makes for the whole session: a 3072-bit RSA key takes a
    good part of a second to generate, and most certificate tests are not about keys."""
    from django.test import override_settings

    from certificates.keys import ensure_signing_key

    directory = tmp_path_factory.mktemp("signing-keys")
    with override_settings(CERT_KEY_DIR=directory):
        ensure_signing_key()
    return directory


@pytest.fixture
def certificate(learner_client, passed_exam, signing_key_dir, session_signing_key):
    """The learner's certificate, claimed through the result page like a learner would, and signed
    with a copy of the session's key (the tests of the key commands start from an empty folder)."""
    from certificates.models import Certificate

    shutil.copytree(session_signing_key, signing_key_dir, dirs_exist_ok=True)
    response = learner_client.post(reverse("certificates:claim", args=["final-exam", passed_exam.key]))
    assert response.status_code == 302, response.content[:300]
    return Certificate.objects.get()
