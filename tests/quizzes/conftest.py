"""Quiz fixtures: small YAML quizzes written under tmp_path, and helpers that answer like a learner
(tests/factories.py builds both)."""

from pathlib import Path

import pytest
from django.urls import reverse

from quizzes.models import Attempt
from tests.factories import (
    LANGS,
    answer_url,
    correct_answer,
    demo_quizzes,
    exam_bank,
    guide_quiz,
    question,
    text,
    write_claims,
    write_quiz,
    wrong_answer,
)


@pytest.fixture(autouse=True)
def english_by_default():
    """A request to /hi/ leaves Hindi active in this thread; each test starts from English."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture
def quiz_content(tmp_path, settings) -> Path:
    settings.CONTENT_DIR = demo_quizzes(tmp_path / "content")
    return settings.CONTENT_DIR


@pytest.fixture
def quizzes(db, quiz_content):
    from quizzes.services import quizzes_sync

    quizzes_sync(content_dir=quiz_content)


@pytest.fixture
def quizzes_with(db, tmp_path, settings):
    """`quizzes_with(guide=[...], exam=[...])`: the demo quizzes with extra questions, synced."""
    from quizzes.services import quizzes_sync

    def sync(guide: list[dict] = (), exam: list[dict] = ()) -> None:
        settings.CONTENT_DIR = demo_quizzes(tmp_path / "content-with", guide, exam)
        quizzes_sync(content_dir=settings.CONTENT_DIR)

    return sync


@pytest.fixture
def start_attempt():
    def start(client, slug: str = "demo-guide") -> Attempt:
        response = client.post(reverse("quizzes:start", args=[slug]))
        assert response.status_code == 302, response.content[:500]
        return Attempt.objects.get(key=response["Location"].rstrip("/").split("/")[-1])

    return start


@pytest.fixture
def take_quiz(start_attempt):
    """Starts an attempt, answers `correct` questions right and the rest wrong, and finishes it."""

    def take(client, slug: str = "demo-guide", correct: int | None = None) -> Attempt:
        attempt = start_attempt(client, slug)
        for number in range(1, attempt.total + 1):
            right = correct is None or number <= correct
            data = correct_answer(attempt, number) if right else wrong_answer(attempt, number)
            assert client.post(answer_url(attempt, number), data).status_code == 302
        client.post(reverse("quizzes:finish", args=[slug, attempt.key]))
        attempt.refresh_from_db()
        return attempt

    return take


def assert_refused(root: Path, extra_question: dict, message: str) -> None:
    """The demo guide quiz with `extra_question` added does not load, and says `message`."""
    import re

    from course.content import ContentError
    from quizzes.content import load_all_quizzes

    quiz = guide_quiz()
    quiz["questions"].append(extra_question)
    write_quiz(root, "demo-guide", quiz)
    write_claims(root, quiz)
    with pytest.raises(ContentError, match=re.escape(message)):
        load_all_quizzes(root, list(LANGS))


@pytest.fixture
def helpers():
    """The builders of tests/factories.py, by the names these tests know them."""
    from types import SimpleNamespace

    return SimpleNamespace(
        text=text,
        question=question,
        guide_quiz=guide_quiz,
        exam_bank=exam_bank,
        write_quiz=write_quiz,
        write_claims=write_claims,
        correct_post=correct_answer,
        wrong_post=wrong_answer,
        answer_url=answer_url,
        assert_refused=assert_refused,
    )
