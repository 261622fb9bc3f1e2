"""Seeds a benchmark copy of the site (bench/harness.py runs it with the copy's environment):
a learner who passes the final exam and is issued a real certificate through the quizzes
services, and a personal API token. Prints one JSON line: the pages to load and the token.

`correct_form()` is also used by bench/quiz_roundtrip.py to answer like a learner who knows.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def correct_form(attempt, number: int) -> dict[str, Any]:
    """The form a learner who knows the answer sends for question `number` (positions, not ids)."""
    from quizzes.grading import correct_response
    from quizzes.models import Question

    question = Question.objects.get(pk=attempt.question_ids[number - 1])
    shown = attempt.layout.get(str(question.pk), [])
    if question.type == Question.Type.NUMERIC:  # parameterised ones: the key for the numbers drawn
        return {"value": repr(correct_response(question, attempt.drawn_for(question)))}
    if question.type == Question.Type.ORDERING:
        return {f"rank-{shown.index(o['id']) + 1}": str(rank) for rank, o in enumerate(question.options, start=1)}
    positions = [str(shown.index(o["id"]) + 1) for o in question.options if o["correct"]]
    return {"choice": positions}  # a list for every kind, as the browser tests post


def seed() -> dict[str, Any]:
    from django.http import QueryDict
    from django.urls import reverse
    from django.utils import translation

    from accounts.models import ApiToken
    from accounts.services import account_create
    from certificates.services import certificate_issue
    from course.models import GuidePage
    from course.services import guide_read
    from labs.models import LabRun
    from labs.presets import PRESETS
    from labs.reference import reference_sweep_latest
    from labs.services import lab_preset_submit
    from quizzes import selectors, services
    from quizzes.models import Attempt

    user = account_create(
        username="bench-learner",
        email="bench@example.com",
        password="bench-Passphrase-" + "x" * 12,
        full_name="Bench Learner",
        language="en",
    )
    exam = selectors.published_quizzes().get(is_exam=True)
    attempt = services.attempt_start(quiz=exam, user=user, owned=Attempt.objects.filter(user=user), language="en")
    for number in range(1, attempt.total + 1):
        form = QueryDict(mutable=True)
        for name, value in correct_form(attempt, number).items():
            form.setlist(name, value if isinstance(value, list) else [value])
        services.attempt_answer(attempt=attempt, number=number, data=form)
    attempt = services.attempt_finish(attempt=attempt)
    certificate = certificate_issue(attempt=attempt, user=user)
    _token, raw_token = ApiToken.issue(user=user, name="bench")

    first = GuidePage.objects.filter(language="en", guide__is_published=True).order_by("guide__order").first()
    slug = first.guide.slug
    preset = GuidePage.objects.exclude(guide__lab_preset="").order_by("guide__order").first().guide.lab_preset
    # The learner's own pages for --signed-in: a guide quiz half answered, and a lab run of a preset.
    guide_quiz = selectors.published_quizzes().get(slug=slug)
    owned = Attempt.objects.filter(user=user)
    in_progress = services.attempt_start(quiz=guide_quiz, user=user, owned=owned, language="en")
    form = QueryDict(mutable=True)
    for name, value in correct_form(in_progress, 1).items():
        form.setlist(name, value if isinstance(value, list) else [value])
    services.attempt_answer(attempt=in_progress, number=1, data=form)
    sweep = lab_preset_submit(user=user, preset=PRESETS[preset])
    run = sweep[0]
    for page in GuidePage.objects.filter(language="en", guide__is_published=True).select_related("guide"):
        guide_read(user=user, guide=page.guide)  # the learner has opened every guide (the dashboard lists them)
    reference = reference_sweep_latest(preset)
    reference_runs = [r.pk for r in reference.runs if r.status == LabRun.Status.SUCCEEDED] if reference else []
    pages = GuidePage.objects.filter(guide__is_published=True)
    with translation.override("en"):
        return {
            "guide_paths": [reverse("course:guide_detail", args=[p.guide.slug]) for p in pages.filter(language="en")],
            "course_path": reverse("course:overview"),
            "verify_path": reverse("certificates:verify_credential"),
            # The preset's reference sweep, as the guides draw it: its first run's page, and all compared.
            "reference_run_path": reverse("labs:run", args=[reference_runs[0]]) if reference_runs else "",
            "compare_path": reverse("labs:compare") + "?" + "&".join(f"run={pk}" for pk in reference_runs),
            "narration": {
                "pages": pages.count(),
                "recorded": pages.exclude(narration_file="").exclude(summary_audio_file="").count(),
            },
            "home_path": reverse("course:home"),
            "guide_index_path": reverse("course:guide_index"),
            "guide_path": reverse("course:guide_detail", args=[slug]),
            "preset_path": reverse("labs:preset", args=[preset]),
            "quiz_slug": slug,
            "quiz_path": reverse("quizzes:quiz", args=[slug]),
            "certificate_path": reverse("certificates:verify", args=[certificate.display_id]),
            "certificate_id": certificate.display_id,
            "api_token": raw_token,
            "dashboard_path": reverse("accounts:dashboard"),
            "attempt_path": selectors.attempt_url(in_progress),
            "run_path": reverse("labs:run", args=[run.pk]),
            "lab_index_path": reverse("labs:index"),
            "own_compare_path": reverse("labs:compare") + "?" + "&".join(f"run={r.share_ref}" for r in sweep),
        }


if __name__ == "__main__":
    import django

    django.setup()
    print(json.dumps(seed()))
