"""Real objects that several test folders build the same way: accounts, quiz content, quiz answers,
exams and lab runs. Fixtures (the conftest.py files) are thin wrappers around these; a test module
may import them directly. Each builder goes through the app's own services where that matters."""

from datetime import timedelta
from pathlib import Path

import yaml
from django.urls import reverse
from django.utils import timezone

PASSWORD = "a-long-Passphrase-42"


# ---------------------------------------------------------------- accounts


def account(username: str = "asha", *, full_name: str = "Asha Verma", password: str = PASSWORD, language: str = "en"):
    """A signed-up learner (accounts.services.account_create), with a full name on their profile."""
    from accounts.services import account_create

    return account_create(
        username=username, email=f"{username}@example.com", password=password, full_name=full_name, language=language
    )


def other_account():
    """A second learner, for what one learner must not see or do to another's."""
    return account("bilal", full_name="Bilal Khan", password="another-Passphrase-43")


# ---------------------------------------------------------------- quiz content (YAML under a content folder)

LANGS = ("en", "hi", "fr")
MARK = {"en": "", "hi": "हिंदी: ", "fr": "FR: "}


def text(en: str) -> dict[str, str]:
    """The same text in the three languages, marked so a test can tell which one is shown."""
    return {lang: f"{MARK[lang]}{en}" for lang in LANGS}


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
    # libyaml's safe dumper writes the same text as yaml.safe_dump, nine times faster (most quiz
    # and certificate tests write the 30-question exam).
    path.write_text(yaml.dump(data, Dumper=yaml.CSafeDumper, allow_unicode=True, sort_keys=False), encoding="utf-8")
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


def demo_quizzes(root: Path, guide: list[dict] = (), exam: list[dict] = ()) -> Path:
    """The demo guide quiz and the final exam under `root`, with extra questions; returns `root`."""
    demo, bank = guide_quiz(), exam_bank()
    demo["questions"] += list(guide)
    bank["questions"] += list(exam)
    for slug, data in (("demo-guide", demo), ("final-exam", bank)):
        write_quiz(root, slug, data)
        write_claims(root, data)
    return root


# ---------------------------------------------------------------- answering a quiz like a learner


def answer_form(question, shown: list[str], drawn: dict, right: bool) -> dict[str, str | list[str]]:
    """The form a learner sends for `question` shown with its options in the order `shown` (by their
    positions) and the numbers `drawn`: the right answer, or a wrong one."""
    from quizzes.grading import correct_response

    if question.type == "numeric":
        key = correct_response(question, drawn)
        return {"value": repr(key if right else key + 1000)}
    if question.type == "ordering":
        order = question.options if right else list(reversed(question.options))
        return {f"rank-{shown.index(o['id']) + 1}": str(rank) for rank, o in enumerate(order, start=1)}
    if right:
        return {"choice": [str(shown.index(o["id"]) + 1) for o in question.options if o["correct"]]}
    wrong = next(o["id"] for o in question.options if not o["correct"])
    return {"choice": [str(shown.index(wrong) + 1)]}


def correct_answer(attempt, number: int) -> dict[str, str | list[str]]:
    """The form a learner who knows the answer sends for question `number` (options by their shown position)."""
    from quizzes.models import Question

    q = Question.objects.get(pk=attempt.question_ids[number - 1])
    return answer_form(q, attempt.layout.get(str(q.pk), []), attempt.drawn_for(q), right=True)


def wrong_answer(attempt, number: int) -> dict[str, str | list[str]]:
    from quizzes.models import Question

    q = Question.objects.get(pk=attempt.question_ids[number - 1])
    return answer_form(q, attempt.layout.get(str(q.pk), []), attempt.drawn_for(q), right=False)


def review_answer(missed, right: bool = True) -> dict[str, str | list[str]]:
    """The form a learner sends for a missed question on the dashboard, shown with the option order
    and the numbers drawn for this review."""
    return answer_form(missed.question, missed.layout, missed.parameters, right)


def answer_url(attempt, number: int) -> str:
    return reverse("quizzes:answer", args=[attempt.quiz.slug, attempt.key, number])


def answer_through_services(attempt, number: int, data: dict) -> None:
    from django.http import QueryDict

    from quizzes.services import attempt_answer

    post = QueryDict(mutable=True)
    for key, value in data.items():
        post.setlist(key, value if isinstance(value, list) else [value])
    attempt_answer(attempt=attempt, number=number, data=post)


def exam_taken_and_passed(user, language: str = "en"):
    """A finished, passed final exam of `user` (the synced one), answered through the quiz services."""
    from quizzes.models import Attempt, Quiz
    from quizzes.services import attempt_finish, attempt_start

    exam = Quiz.objects.get(slug="final-exam")
    attempt = attempt_start(quiz=exam, user=user, owned=Attempt.objects.filter(user=user), language=language)
    for number in range(1, attempt.total + 1):
        answer_through_services(attempt, number, correct_answer(attempt, number))
    return attempt_finish(attempt=attempt)


def passed_exam_attempt(user, exam):
    """A finished final-exam attempt of `user` that passed, stored directly (no answers needed): what
    a certificate is issued for."""
    from quizzes.models import Attempt

    now = timezone.now()
    question_ids = list(exam.questions.values_list("pk", flat=True)[:1])  # real ones: its result page shows them
    return Attempt.objects.create(
        quiz=exam, user=user, language="en", question_ids=question_ids, started_at=now - timedelta(minutes=9),
        finished_at=now, correct_count=len(question_ids), passed=True,
    )  # fmt: skip


# ---------------------------------------------------------------- lab runs, stored without a worker

TINY_RUN = {
    "task": "digits-mlp",
    "norm": "layer",
    "effective_batch_size": 16,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "steps": 3,
    "seed": 0,
    "grad_clip": None,
}


def tiny_config(**changes):
    """A RunConfig that trains in well under a second: `tiny_config(steps=5)`."""
    from labs.training.config import validate_config

    config, errors = validate_config({**TINY_RUN, **changes})
    assert config is not None, errors
    return config


def run_form(data=None):
    """The lab form as its view builds it: with the limits the connected workers set now."""
    from labs.forms import RunForm
    from labs.workers import site_limits

    return RunForm(data, limits=site_limits())


def lab_run(user, status="queued", preset: str = "", **fields):
    """A stored run in any state (`config={...}`: changes to TINY_RUN); a finished one has a curve and metrics."""
    from labs.models import LabRun
    from labs.training.config import CODE_VERSION, config_fingerprint

    config = tiny_config(**fields.pop("config", {}))
    finished = status in (LabRun.Status.SUCCEEDED, LabRun.Status.FAILED, LabRun.Status.CANCELLED)
    point = {"grad_norm": 1.0, "lr": 0.05, "tokens": None}
    steps = range(1, config.steps + 1) if finished else []
    curve = [{**point, "step": s, "loss": 2.0 / s, "samples": 16 * s, "seconds": 0.1 * s} for s in steps]
    defaults = {
        "user": user,
        "preset": preset,
        "preset_index": 0 if preset else None,
        "config": config.to_dict(),
        "fingerprint": config_fingerprint(config),
        "code_version": CODE_VERSION,
        "status": status,
        "total_steps": config.steps,
        "done_steps": len(curve),
        "curve": curve,
        "metrics": {"final_loss": 0.5, "val_accuracy": 0.9, "peak_activation_bytes": 4096} if finished else {},
        "finished_at": timezone.now() if finished else None,
    }
    defaults.update(fields)
    return LabRun.objects.create(**defaults)


def finished_run(user, config: dict, *, preset: str = "", index: int | None = None, loss: float = 2.0):
    """A succeeded run of the settings `config` (a preset's, say), with a short loss curve and the
    metrics the charts and comparison tables show."""
    from labs.models import LabRun
    from labs.training.config import CODE_VERSION, config_fingerprint, validate_config

    run_config, errors = validate_config(config)
    assert run_config is not None, errors
    steps, batch = run_config.steps, run_config.effective_batch_size
    curve = [
        {"step": s, "loss": loss / s, "samples": batch * s, "seconds": 0.05 * s, "grad_norm": 1.0, "lr": 0.05}
        for s in range(1, steps + 1)
    ]
    metrics = {
        "final_loss": loss / steps,
        "val_loss": loss / steps,
        "val_accuracy": 0.5,
        "samples_per_second": 900.0,
        "wall_seconds": 0.05 * steps,
        "peak_activation_bytes": 4096,
        "grad_equivalence_error": 1e-7,
    }
    return LabRun.objects.create(
        user=user, preset=preset, preset_index=index, config=run_config.to_dict(),
        fingerprint=config_fingerprint(run_config), code_version=CODE_VERSION, status=LabRun.Status.SUCCEEDED,
        total_steps=steps, done_steps=steps, curve=curve, metrics=metrics, device="cpu", torch_version="2",
        finished_at=timezone.now(),
    )  # fmt: skip


def reference_sweep(slug: str, status="succeeded", **metrics):
    """A finished reference sweep of a preset as the worker stores it. Each run's curve and metrics
    differ, so captions must pick the right run's numbers; `metrics` override all of them."""
    import uuid

    from labs.models import LabRun
    from labs.presets import PRESETS
    from labs.reference import preset_fingerprints, reference_results_changed
    from labs.training.config import CODE_VERSION

    preset, sweep = PRESETS[slug], uuid.uuid4()
    runs = []
    for index, ((_label, config), fp) in enumerate(zip(preset.configs(), preset_fingerprints(preset), strict=True)):
        steps = config["steps"]
        curve = [
            {"step": s, "loss": 2.0 / s + 0.01 * index, "samples": s, "seconds": 0.01 * s} for s in range(1, steps + 1)
        ]
        run_metrics = {
            "final_loss": curve[-1]["loss"],
            "val_loss": 0.5,
            "val_accuracy": 0.9,
            "peak_activation_bytes": 1_048_576 // (index + 1),
            "grad_equivalence_error": 10.0 ** -(7 - index),
            "allreduce_calls": [0, 60, 120][index] if index < 3 else None,
            "allreduce_bytes": [0, 6_392_160, 12_784_320][index] if index < 3 else None,
            "wall_seconds": 1.5,
            "diverged": False,
            **metrics,
        }
        runs.append(
            LabRun.objects.create(
                user=None,
                reference=True,
                preset=slug,
                preset_index=index,
                sweep=sweep,
                config=config,
                fingerprint=fp,
                code_version=CODE_VERSION,
                status=status,
                total_steps=steps,
                done_steps=steps,
                curve=curve,
                metrics=run_metrics,
                device="NVIDIA H200",
                finished_at=timezone.now(),
            )
        )
    reference_results_changed()
    return runs


# ---------------------------------------------------------------- narration, recorded for real


def french_narration_recorded(slug: str, stem: str) -> tuple[object, list[Path]]:
    """Real espeak-ng recordings of one French guide page (its section titles only: a second each),
    stored on the page as generate_narration stores them; returns the page and the files written."""
    from django.conf import settings

    from course import narration
    from course.models import GuidePage
    from course.services import narration_record, narration_sections, narration_store

    page = GuidePage.objects.select_related("guide").get(guide__slug=slug, language="fr")
    sections = narration_sections(page)
    full = settings.NARRATION_DIR / f"{slug}.fr.{stem}.ogg"
    summary = settings.NARRATION_DIR / f"{slug}.fr.{stem}-summary.ogg"
    marks = narration.synthesize_chapters([s["title"] for s in sections], "fr", full)
    starts = zip(sections, marks, strict=False)  # marks ends with the total duration
    chapters = [{"id": s["id"], "title": s["title"], "start": round(m, 1)} for s, m in starts]
    narration.write_chapters_vtt(chapters, marks[-1], full.with_suffix(".vtt"))
    narration_record(page, full.name, marks[-1], chapters)
    seconds = narration.synthesize(page.title, "fr", summary)
    narration_store(page, {"summary_audio_file": summary.name, "summary_audio_seconds": seconds})
    return page, [full, full.with_suffix(".vtt"), summary]
