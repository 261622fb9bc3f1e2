"""Claim checks: every content/claims/<name>.py runs on the CPU and its asserts hold, every one is
named by a question's `checked_by`, and the content sync refuses a spot-the-bug question without one
or a `checked_by` that names no file, without ever importing or running the scripts."""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from course.content import ContentError
from quizzes.content import CLAIMS_FOLDER, load_all_quizzes, quiz_files

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

LANGS = ["en", "hi", "fr"]
CONTENT_DIR = Path(settings.BASE_DIR) / "content"
CLAIMS_DIR = CONTENT_DIR / CLAIMS_FOLDER
CLAIM_FILES = sorted(CLAIMS_DIR.glob("*.py"))
RUNNER = Path(settings.BASE_DIR) / "tests" / "course" / "block_runner.py"


@pytest.fixture(scope="module")
def claim_results(tmp_path_factory):
    """Every claim script run once, as `python <name>.py` in a clean environment on the CPU, by
    tests/course/block_runner.py (one process each, forked after their imports: torch loads once).
    They run from a copy, so the runner's output files stay out of content/."""
    folder = tmp_path_factory.mktemp("claims")
    copies = []
    for path in CLAIM_FILES:
        copies.append(folder / path.name)
        shutil.copy(path, copies[-1])
    results = folder / "results.json"
    subprocess.run(
        [sys.executable, str(RUNNER), str(results), *map(str, copies)],
        check=True,
        timeout=120 * len(copies),
        env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0", "CUDA_VISIBLE_DEVICES": ""},
    )
    by_path = json.loads(results.read_text(encoding="utf-8"))
    return {Path(path).stem: result for path, result in by_path.items()}


def test_there_are_claim_checks():
    assert len(CLAIM_FILES) >= 16


@pytest.mark.parametrize("name", [path.stem for path in CLAIM_FILES])
def test_the_claim_check_holds(name, claim_results):
    result = claim_results[name]
    assert result["returncode"] == 0, result["output"]


@pytest.mark.parametrize("path", CLAIM_FILES, ids=lambda path: path.stem)
def test_a_claim_check_says_what_it_checks_and_for_which_questions(path):
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    assert docstring.startswith("Claim:"), path.name
    assert "Used by:" in docstring, path.name


def test_every_claim_check_is_named_by_a_question_and_every_spot_bug_question_has_one():
    questions = [q for quiz in load_all_quizzes(CONTENT_DIR, LANGS).values() for q in quiz.questions]
    named = {q.checked_by for q in questions if q.checked_by}
    orphans = sorted(path.stem for path in CLAIM_FILES if path.stem not in named)
    assert not orphans, f"claim checks that no question names in 'checked_by': {orphans}"
    assert all(q.checked_by for q in questions if q.type == "spot_bug")


# A question of any type that says some code, a library's loop or a test does something wrong, and
# how wrong (AUTHORING.md, "Claim checks"), names the check that shows it. Only spot_bug questions
# are marked as such by their type; the others are found by what their English prompt, keyed
# options and explanation state: a factor or a fraction off ("N times too large", "3/8 of the
# intended size", "divided twice"), gradients left stale or leaking, a schedule that climbs back,
# memory back to the full batch's, a test that passes, fails, catches or misses, or a bug.
BUG_CLAIM = re.compile(
    r"\b(N|GAS|k|\d+) times (too|larger|smaller|stronger|weaker|faster|slower|further)\b"
    r"|\btoo (large|small|fast|slow|strong|weak|early|soon|late|often)\b"
    r"|\b(divided|divides|divide|scaled|scales|counted|applied|added|stepped)\b"
    r"[^.;:]{0,60}\b(twice|N times|\d+ times)\b"
    r"|\bstale\b|\bleaks?\b|\bof (the|its) intended\b|\bthan intended\b"
    r"|\bclimbs? back\b|\bback (up|towards? its peak|to its peak)\b|\bback to (that of )?the full batch"
    r"|\b(test|check)s? (still )?(passes|fails|catches|misses)\b|\bbug\b",
    re.IGNORECASE,
)
# Questions whose wording matches but whose claim a claim check does not (or need not) show.
NOT_CLAIM_CHECKED = {
    "trainer-token-count": "transformers' Trainer on a real GPT-2: guide 5's runnable #worked-example shows it, "
    "run by tests/course/test_runnable_code.py (a claim check would repeat it)",
    "drawn-linear-lr-scaling": "the linear scaling rule's intuition (k small steps against one k times larger); "
    "no code is said to be wrong",
}


def bug_claims(question: dict) -> list[str]:
    texts = [question["prompt"]["en"], question.get("explanation", {}).get("en", "")]
    texts += [option["text"]["en"] for option in question.get("options", []) if option.get("correct")]
    return [match.group(0) for match in BUG_CLAIM.finditer(" ".join(texts))]


def test_every_question_that_claims_a_bug_names_its_check():
    """Read from the YAML, like the test below: the English texts decide, whatever the question's type."""
    missing, stale_exemptions = [], set(NOT_CLAIM_CHECKED)
    for slug, path in quiz_files(CONTENT_DIR):
        for question in yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]:
            claims = bug_claims(question) if question["type"] != "spot_bug" else ["spot_bug"]
            stale_exemptions.discard(question["id"] if claims else "")
            if claims and "checked_by" not in question and question["id"] not in NOT_CLAIM_CHECKED:
                missing.append(f"{slug}: {question['id']} ({claims[0]!r})")
    assert not missing, "questions that claim a bug but name no `checked_by`:\n" + "\n".join(missing)
    assert not stale_exemptions, f"exempted, but no longer worded as a claim: {sorted(stale_exemptions)}"


def test_a_claim_check_lists_the_questions_that_name_it():
    """Each script's `Used by:` names every question whose `checked_by` is that script."""
    docstrings = {
        path.stem: ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or "" for path in CLAIM_FILES
    }
    unlisted = []
    for _, path in quiz_files(CONTENT_DIR):
        for question in yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]:
            name = question.get("checked_by")
            used_by = docstrings.get(name, "").partition("Used by:")[2]
            if name and f"`{question['id']}`" not in used_by:
                unlisted.append(f"{name}: {question['id']}")
    assert not unlisted, f"questions missing from their check's 'Used by:': {unlisted}"


# The loader's rules, on content trees written for the test -----------------------------------


def spot_bug(**changes) -> dict:
    data = {
        "id": "bug-zero-grad-inside",
        "type": "spot_bug",
        "prompt": {lang: f"{lang}: which line breaks accumulation?" for lang in LANGS},
        "code": "for x, y in loader:\n    optimizer.zero_grad()\n    loss_fn(model(x), y).backward()\n",
        "bug_lines": [2],
        "hint": {lang: f"{lang}: where are the gradients cleared?" for lang in LANGS},
        "explanation": {lang: f"{lang}: zero_grad() every micro-batch keeps only the last." for lang in LANGS},
        "checked_by": "zero_grad_inside",
    }
    data.update(changes)
    return {key: value for key, value in data.items() if value is not None}


def write_content(root: Path, helpers, question: dict, claims: dict[str, str]) -> Path:
    quiz = helpers.guide_quiz()
    quiz["questions"].append(question)
    helpers.write_quiz(root, "demo-guide", quiz)
    helpers.write_quiz(root, "final-exam", helpers.exam_bank())
    for name, code in claims.items():
        (root / CLAIMS_FOLDER).mkdir(parents=True, exist_ok=True)
        (root / CLAIMS_FOLDER / f"{name}.py").write_text(code, encoding="utf-8")
    return root


def test_a_spot_bug_question_with_an_existing_check_loads_and_keeps_its_name(tmp_path, helpers):
    root = write_content(tmp_path, helpers, spot_bug(), {"zero_grad_inside": '"""Claim: ..."""\n'})
    quiz = load_all_quizzes(root, LANGS)["demo-guide"]
    assert {q.id: q.checked_by for q in quiz.questions}["bug-zero-grad-inside"] == "zero_grad_inside"
    assert {q.checked_by for q in quiz.questions if q.type != "spot_bug"} == {""}


def test_a_spot_bug_question_without_checked_by_is_refused(tmp_path, helpers):
    root = write_content(tmp_path, helpers, spot_bug(checked_by=None), {"zero_grad_inside": ""})
    with pytest.raises(ContentError) as error:
        load_all_quizzes(root, LANGS)
    message = str(error.value)
    assert "guides/demo-guide/quiz.yaml" in message and "question 'bug-zero-grad-inside'" in message
    assert "needs 'checked_by: <name>'" in message and "content/claims/<name>.py" in message


def test_a_checked_by_naming_no_file_is_refused(tmp_path, helpers):
    root = write_content(tmp_path, helpers, spot_bug(checked_by="zero_grad_insde"), {"zero_grad_inside": ""})
    with pytest.raises(ContentError) as error:
        load_all_quizzes(root, LANGS)
    message = str(error.value)
    assert "guides/demo-guide/quiz.yaml" in message and "question 'bug-zero-grad-inside'" in message
    assert f"{root / CLAIMS_FOLDER / 'zero_grad_insde.py'} does not exist" in message


def test_an_exam_question_naming_no_file_is_refused_too(tmp_path, helpers):
    bank = helpers.exam_bank()
    bank["questions"][0]["checked_by"] = "missing_check"  # any question type may name a check
    helpers.write_quiz(tmp_path, "demo-guide", helpers.guide_quiz())
    helpers.write_quiz(tmp_path, "final-exam", bank)
    with pytest.raises(ContentError, match=r"final-exam/quiz.yaml: question 'exam-0' is checked_by 'missing_check'"):
        load_all_quizzes(tmp_path, LANGS)


@pytest.mark.parametrize("name", ["../outside", "Zero-Grad", "zero_grad.py", "zero_grad\n", "", 3])
def test_checked_by_is_a_plain_file_name(tmp_path, helpers, name):
    root = write_content(tmp_path, helpers, spot_bug(checked_by=name), {})
    with pytest.raises(ContentError, match="'checked_by' must be the name of a file in content/claims/"):
        load_all_quizzes(root, LANGS)


def test_syncing_checks_that_the_script_exists_without_importing_or_running_it(tmp_path, helpers):
    marker = tmp_path / "the-script-ran"
    script = f'"""Claim: ..."""\nimport pathlib\npathlib.Path({str(marker)!r}).write_text("ran")\nimport torch\n'
    root = write_content(tmp_path / "content", helpers, spot_bug(), {"zero_grad_inside": script})
    code = (
        "import sys, django; django.setup()\n"
        "from quizzes.content import load_all_quizzes\n"
        f"quizzes = load_all_quizzes(__import__('pathlib').Path({str(root)!r}), {LANGS!r})\n"
        "print(sum(len(q.questions) for q in quizzes.values()), 'torch' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["36", "False"]  # 6 guide questions and 30 in the bank; no torch
    assert not marker.exists()


def test_every_checked_by_in_the_real_quiz_files_names_a_script():
    """Read from the YAML itself, so that this holds even while another rule stops the loader."""
    for _, path in quiz_files(CONTENT_DIR):
        for question in yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]:
            if "checked_by" in question:
                assert (CLAIMS_DIR / f"{question['checked_by']}.py").is_file(), (path, question["id"])
