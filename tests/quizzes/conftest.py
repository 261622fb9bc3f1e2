"""Quiz fixtures: small YAML quizzes written under tmp_path, and helpers that answer like a learner."""

from pathlib import Path

import pytest
import yaml
from django.urls import reverse

from quizzes.grading import correct_response
from quizzes.models import Attempt, Question

LANGS = ("en", "hi", "fr")
HINDI = {"en": "", "hi": "हिंदी: ", "fr": "FR: "}


def text(en: str) -> dict[str, str]:
    """The same text in the three languages, marked so a test can tell which one is shown."""
    return {lang: f"{HINDI[lang]}{en}" for lang in LANGS}


def question(qid: str, qtype: str, **fields) -> dict:
    data = {
        "id": qid,
        "type": qtype,
        "prompt": text(f"Prompt of {qid}?"),
        "hint": text(f"Hint for {qid}"),
        "explanation": text(f"Explanation of {qid}"),
    }
    if qtype in ("single", "multiple"):
        correct = fields.pop("correct", ["a"])
        data["options"] = [
            {"id": oid, "correct": oid in correct, "text": text(f"Option {oid} of {qid}")}
            for oid in ("a", "b", "c", "d")
        ]
    elif qtype == "ordering":
        data["options"] = [{"id": oid, "text": text(f"Step {oid}")} for oid in ("zero", "forward", "backward", "step")]
    data.update(fields)
    return data


def guide_quiz() -> dict:
    return {
        "title": text("Demo quiz"),
        "questions": [
            question("pick-one", "single", correct=["b"]),
            question("pick-many", "multiple", correct=["a", "c"]),
            question("effective-batch", "numeric", answer=64, tolerance=0),
            question("loss-scale", "numeric", answer=0.125, tolerance=0.0001),
            question("window-order", "ordering"),
        ],
    }


def exam_bank(size: int = 30) -> dict:
    kinds = ["single", "numeric", "multiple", "ordering", "single", "numeric"]
    questions = []
    for i in range(size):
        kind = kinds[i % len(kinds)]
        extra = {"answer": 10 + i, "tolerance": 0} if kind == "numeric" else {}
        if kind == "multiple":
            extra = {"correct": ["b", "d"]}
        questions.append(question(f"exam-{i}", kind, **extra))
    return {"title": text("Final exam"), "questions": questions}


def write_quiz(root: Path, slug: str, data: dict) -> Path:
    folder = root / ("final-exam" if slug == "final-exam" else f"guides/{slug}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "quiz.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


def write_claims(root: Path, data: dict) -> None:
    """A content/claims/<name>.py for each `checked_by` of the quiz (the loader checks only that the
    file exists; tests/quizzes/test_claims.py runs the real ones)."""
    for item in data["questions"]:
        if "checked_by" in item:
            (root / "claims").mkdir(parents=True, exist_ok=True)
            (root / "claims" / f"{item['checked_by']}.py").write_text(
                '"""Claim: a test fixture."""\n', encoding="utf-8"
            )


@pytest.fixture(autouse=True)
def english_by_default():
    """A request to /hi/ leaves Hindi active in this thread; each test starts from English."""
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    """Hashing a password properly takes a good part of a second; these tests create many accounts."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def quiz_content(tmp_path, settings) -> Path:
    root = tmp_path / "content"
    write_quiz(root, "demo-guide", guide_quiz())
    write_quiz(root, "final-exam", exam_bank())
    settings.CONTENT_DIR = root
    return root


@pytest.fixture
def quizzes(db, quiz_content):
    from quizzes.services import quizzes_sync

    quizzes_sync(content_dir=quiz_content)


@pytest.fixture
def quizzes_with(db, tmp_path, settings):
    """`quizzes_with(guide=[...], exam=[...])`: the demo quizzes with extra questions, synced."""
    from quizzes.services import quizzes_sync

    def sync(guide: list[dict] = (), exam: list[dict] = ()) -> None:
        root = tmp_path / "content-with"
        demo, bank = guide_quiz(), exam_bank()
        demo["questions"] += list(guide)
        bank["questions"] += list(exam)
        write_quiz(root, "demo-guide", demo)
        write_quiz(root, "final-exam", bank)
        write_claims(root, demo)
        write_claims(root, bank)
        settings.CONTENT_DIR = root
        quizzes_sync(content_dir=root)

    return sync


def correct_post(attempt: Attempt, number: int) -> dict:
    """The form a learner who knows the answer would send for question `number`."""
    q = Question.objects.get(pk=attempt.question_ids[number - 1])
    shown = attempt.layout.get(str(q.pk), [])
    if q.type == "numeric":
        return {"value": repr(correct_response(q, attempt.drawn_for(q)))}
    if q.type == "ordering":
        return {f"rank-{shown.index(o['id']) + 1}": str(rank) for rank, o in enumerate(q.options, start=1)}
    positions = [str(shown.index(o["id"]) + 1) for o in q.options if o["correct"]]
    return {"choice": positions if q.type in ("multiple", "spot_bug") else positions[0]}


def wrong_post(attempt: Attempt, number: int) -> dict:
    q = Question.objects.get(pk=attempt.question_ids[number - 1])
    shown = attempt.layout.get(str(q.pk), [])
    if q.type == "numeric":
        return {"value": repr(correct_response(q, attempt.drawn_for(q)) + 1000)}
    if q.type == "ordering":
        backwards = list(reversed(q.options))
        return {f"rank-{shown.index(o['id']) + 1}": str(rank) for rank, o in enumerate(backwards, start=1)}
    wrong = next(o["id"] for o in q.options if not o["correct"])
    return {"choice": str(shown.index(wrong) + 1)}


def answer_url(attempt: Attempt, number: int) -> str:
    return reverse("quizzes:answer", args=[attempt.quiz.slug, attempt.key, number])


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
            data = correct_post(attempt, number) if right else wrong_post(attempt, number)
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
    """The helpers above for test modules (conftest modules are not importable by name)."""
    from types import SimpleNamespace

    return SimpleNamespace(
        text=text,
        question=question,
        guide_quiz=guide_quiz,
        exam_bank=exam_bank,
        write_quiz=write_quiz,
        write_claims=write_claims,
        correct_post=correct_post,
        wrong_post=wrong_post,
        answer_url=answer_url,
        assert_refused=assert_refused,
    )
