"""Every numeric key follows from the numbers its question states.

The author writes the computation in the question's YAML (`formula`, with optional named `inputs`);
this test evaluates it with a small arithmetic evaluator (numbers, names, + - * / ** and brackets,
nothing else), compares it with the key within the question's tolerance, and checks that every
number the formula uses is stated in the prompt in every language.
"""

import ast
import math
import operator
import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from quizzes.content import quiz_files

CONTENT_DIR = Path(settings.BASE_DIR) / "content"
LANGUAGES = ("en", "hi", "fr")
# Structural constants a formula may use without the prompt stating them (1 in 1/x).
FREE_CONSTANTS = {1}
OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
DEVANAGARI_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")
NUMBER_RE = re.compile(r"\d(?:[\d,.\u00a0\u202f]*\d)?")
SPACED_THOUSANDS_RE = re.compile(r"(?<!\d)\d{1,3}(?: \d{3})+(?!\d)")  # French "1 000"


class FormulaError(ValueError):
    pass


def evaluate(formula: str, inputs: dict[str, float] | None = None) -> float:
    """Value of an arithmetic expression; anything but numbers, input names and + - * / ** is refused."""
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"not an arithmetic expression: {formula!r}") from exc
    return float(_eval(tree.body, inputs or {}))


def _eval(node, inputs):
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in inputs:
        return inputs[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _eval(node.operand, inputs)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = _eval(node.left, inputs), _eval(node.right, inputs)
        if isinstance(node.op, ast.Pow) and abs(right) > 64:
            raise FormulaError("exponents above 64 are refused")
        return OPERATORS[type(node.op)](left, right)
    raise FormulaError(f"not allowed in a formula: {ast.dump(node)[:60]}")


def used_numbers(formula: str, inputs: dict[str, float]) -> set[float]:
    literals = {
        node.value
        for node in ast.walk(ast.parse(formula, mode="eval"))
        if isinstance(node, ast.Constant) and type(node.value) in (int, float)
    }
    return {float(v) for v in literals - FREE_CONSTANTS} | {float(v) for v in inputs.values()}


def stated_numbers(text: str) -> set[float]:
    """Every reading of the numbers in a prompt: 10,000 and 10 000 as ten thousand, 1,25 as 1.25."""
    text = text.translate(DEVANAGARI_DIGITS)
    found = {float(token.replace(" ", "")) for token in SPACED_THOUSANDS_RE.findall(text)}
    for token in NUMBER_RE.findall(text):
        compact = token.replace("\u00a0", "").replace("\u202f", "")
        readings = {compact.replace(",", ""), compact.replace(",", "."), *re.split(r"[,\u00a0\u202f]", token)}
        for reading in readings:
            try:
                found.add(float(reading.rstrip(".")))
            except ValueError:
                pass
    return found


def numeric_questions():
    for slug, path in quiz_files(CONTENT_DIR):
        for question in yaml.safe_load(path.read_text(encoding="utf-8"))["questions"]:
            if question.get("type") == "numeric":
                yield pytest.param(question, id=f"{slug}:{question['id']}")


def test_the_evaluator_computes_arithmetic():
    assert evaluate("1/110 / (1/1100)") == pytest.approx(10)
    assert evaluate("2 ** 3 - -1") == 9
    assert evaluate("n * micro", {"n": 16, "micro": 4}) == 64


@pytest.mark.parametrize(
    "formula",
    ["__import__('os').system('true')", "open('x')", "n", "[1, 2]", "1 if 1 else 2", "2 ** 1000", "abs(-1)", "1 % 2"],
)
def test_the_evaluator_refuses_anything_else(formula):
    with pytest.raises(FormulaError):
        evaluate(formula)


def test_stated_numbers_reads_each_languages_way_of_writing_them():
    assert {10000.0, 1.25, 8.0} <= stated_numbers("10,000 samples, 1.25 GB, N = 8")
    assert {10000.0, 1.25} <= stated_numbers("10\u202f000 exemples, 1,25 Go")
    assert {1000.0, 8.0} <= stated_numbers("1 000 exemples, micro-lot 8")
    assert 16.0 in stated_numbers("N = १६")


@pytest.mark.parametrize("question", list(numeric_questions()))
def test_numeric_key_is_reproduced_by_the_numbers_in_the_question(question):
    formula = question.get("formula")
    assert isinstance(formula, str) and formula.strip(), "a numeric question states its 'formula'"
    inputs = question.get("inputs") or {}
    assert all(isinstance(v, int | float) and not isinstance(v, bool) for v in inputs.values())
    value = evaluate(formula, inputs)
    tolerance = max(float(question.get("tolerance", 0)), 1e-9 * abs(question["answer"]))
    assert math.isclose(value, question["answer"], rel_tol=0, abs_tol=tolerance), (
        f"{formula} = {value}, but the key is {question['answer']}"
    )
    for lang in LANGUAGES:
        stated = stated_numbers(question["prompt"][lang])
        missing = sorted(n for n in used_numbers(formula, inputs) if not any(math.isclose(n, s) for s in stated))
        assert not missing, f"the {lang} prompt does not state {missing}"
