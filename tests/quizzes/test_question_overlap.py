"""No question is asked twice: not twice in the final exam, and not once in a guide quiz and again in the exam.

Each exam attempt draws 15 questions from the bank; two copies of one question waste a draw, and an
exam question that repeats a guide quiz's question examines what the learner may have memorised there.

The rule for "the same question" is about what is asked, not how it is worded:

- two fixed numeric questions are the same when their keys agree (within the larger tolerance) and
  their formulas use the same numbers (the key follows from the same data, whatever the order of
  the factors or the wording of the prompt);
- two drawn numeric questions are the same when they draw from the same choices and their formulas
  agree on every draw;
- two spot-the-bug questions are the same when they show the same code;
- two single- or multiple-choice questions are the same when they offer the same options (their
  English texts, compared as words) with the same ones correct.

And a question id (the key answers and statistics are stored under) is never shared between a
guide quiz and the exam, so that a key names one question wherever it is read.
"""

import ast
import itertools
import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from quizzes.formulas import evaluate

CONTENT_DIR = Path(settings.BASE_DIR) / "content"
EXAM_FILE = CONTENT_DIR / "final-exam" / "quiz.yaml"


def load(path: Path) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]


def words(text: str) -> tuple[str, ...]:
    return tuple(re.findall(r"\w+", text.lower()))


def formula_numbers(question: dict) -> list[float]:
    tree = ast.parse(question["formula"], mode="eval")
    literals = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)]
    return sorted(float(value) for value in literals + list((question.get("inputs") or {}).values()))


def draws(question: dict) -> list[dict[str, float]]:
    names = sorted(question["parameters"])
    choices = [question["parameters"][name] for name in names]
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*choices)]


def same_question(a: dict, b: dict) -> str:
    """Why `a` and `b` ask the same thing, or "" when they do not."""
    if a["type"] != b["type"]:
        return ""
    if a["type"] == "numeric" and "answer" in a and "answer" in b:
        tolerance = max(a.get("tolerance", 0), b.get("tolerance", 0), 1e-12)
        if abs(a["answer"] - b["answer"]) <= tolerance and formula_numbers(a) == formula_numbers(b):
            return f"same key {a['answer']} from the same numbers {formula_numbers(a)}"
    if a["type"] == "numeric" and a.get("parameters") and b.get("parameters"):
        if sorted(a["parameters"]) == sorted(b["parameters"]) and all(
            sorted(a["parameters"][n]) == sorted(b["parameters"][n]) for n in a["parameters"]
        ):
            if all(abs(evaluate(a["formula"], d) - evaluate(b["formula"], d)) < 1e-9 for d in draws(a)):
                return "same choices and the same key on every draw"
    if a["type"] == "spot_bug" and words(a["code"]) == words(b["code"]):
        return "same code"
    if a["type"] in ("single", "multiple"):

        def options(q):
            return {(words(o["text"]["en"]), bool(o.get("correct"))) for o in q["options"]}

        if options(a) == options(b):
            return "same options, same ones correct"
    return ""


def overlaps(left: list[dict], right: list[dict] | None = None) -> list[str]:
    pairs = itertools.combinations(left, 2) if right is None else itertools.product(left, right)
    return [f"{a['id']} / {b['id']}: {why}" for a, b in pairs if (why := same_question(a, b))]


def guide_quiz_files() -> list[Path]:
    return sorted((CONTENT_DIR / "guides").glob("*/quiz.yaml"))


SGD_RECIPE = {
    "type": "numeric",
    "prompt": {"en": "SGD at learning rate 0.1 for batch 256. 8 GPUs, micro-batch 32, N = 4: learning rate?"},
    "answer": 0.4,
    "tolerance": 0.0001,
    "formula": "0.1 * (32 * 4 * 8) / 256",
}


@pytest.mark.parametrize(
    ("other", "same"),
    [
        # The same numbers reworded, the factors in another order: the same question.
        (
            {
                "prompt": {"en": "SGD at batch 256 uses 0.1. On 8 GPUs of micro-batch 32 and N = 4, what rate?"},
                "answer": 0.4,
                "tolerance": 0.001,
                "formula": "0.1 * 8 * 32 * 4 / 256",
            },
            True,
        ),
        # The same key from other numbers: another question.
        ({"answer": 0.4, "tolerance": 0.001, "formula": "0.2 * 2 * 64 / 64"}, False),
        # The same numbers, another key (square-root rule): another question.
        ({"answer": 0.2, "tolerance": 0.001, "formula": "0.1 * (32 * 4 * 8 / 256) ** 0.5"}, False),
    ],
)
def test_the_rule_finds_a_numeric_question_asked_again(other, same):
    assert bool(same_question(SGD_RECIPE, {**SGD_RECIPE, **other, "id": "other"})) is same


def test_the_rule_finds_a_choice_question_asked_again_and_not_a_different_one():
    question = {
        "type": "single",
        "options": [
            {"id": "a", "correct": True, "text": {"en": "Once per optimizer step"}},
            {"id": "b", "correct": False, "text": {"en": "After every micro-batch"}},
        ],
    }
    reordered = {**question, "options": list(reversed(question["options"]))}
    other_key = {**question, "options": [{**o, "correct": not o["correct"]} for o in question["options"]]}
    assert same_question(question, reordered)
    assert not same_question(question, other_key)


def test_no_two_exam_questions_ask_the_same_thing():
    found = overlaps(load(EXAM_FILE))
    assert not found, found


@pytest.mark.parametrize("path", guide_quiz_files(), ids=lambda path: path.parent.name)
def test_no_exam_question_repeats_a_guide_quiz_question(path):
    found = overlaps(load(path), load(EXAM_FILE))
    assert not found, found


@pytest.mark.parametrize("path", guide_quiz_files(), ids=lambda path: path.parent.name)
def test_no_question_id_is_shared_between_a_guide_quiz_and_the_exam(path):
    exam_ids = {question["id"] for question in load(EXAM_FILE)}
    shared = sorted(exam_ids & {question["id"] for question in load(path)})
    assert not shared, f"{path}: ids also used in the exam: {shared}"
