"""Every fixed numeric key follows from the numbers its question states.

The author writes the computation in the question's YAML (`formula`, with optional named `inputs`);
this test evaluates it with the quizzes' safe evaluator (numbers, names, + - * / // ** and brackets,
nothing else), compares it with the key within the question's tolerance, and checks that every
number the formula uses is stated in the prompt in every language. Parameterised questions have no
fixed key: the server computes theirs from the same kind of formula for each draw.
"""

import ast
import math
import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from quizzes.content import quiz_files
from quizzes.formulas import evaluate

CONTENT_DIR = Path(settings.BASE_DIR) / "content"
LANGUAGES = ("en", "hi", "fr")
# Structural constants a formula may use without the prompt stating them (1 in 1/x).
FREE_CONSTANTS = {1}
DEVANAGARI_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")
NUMBER_RE = re.compile(r"\d(?:[\d,.\u00a0\u202f]*\d)?")
SPACED_THOUSANDS_RE = re.compile(r"(?<!\d)\d{1,3}(?: \d{3})+(?!\d)")  # French "1 000"


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
        # libyaml's safe loader, as quizzes/content.py reads them: the exam's 400 kB would take the
        # pure-Python one seconds in every test process, at collection.
        for question in yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["questions"]:
            if question.get("type") == "numeric" and "parameters" not in question:
                yield pytest.param(question, id=f"{slug}:{question['id']}")


def test_stated_numbers_reads_each_languages_way_of_writing_them():
    assert {10000.0, 1.25, 8.0} <= stated_numbers("10,000 samples, 1.25 GB, N = 8")
    assert {10000.0, 1.25} <= stated_numbers("10\u202f000 exemples, 1,25 Go")
    assert {1000.0, 8.0} <= stated_numbers("1 000 exemples, micro-lot 8")
    assert 16.0 in stated_numbers("N = १६")


def key_problems(question: dict) -> list[str]:
    formula = question.get("formula")
    if not isinstance(formula, str) or not formula.strip():
        return ["no 'formula' says how the key follows from the prompt"]
    inputs = question.get("inputs") or {}
    value = evaluate(formula, inputs)
    tolerance = max(float(question.get("tolerance", 0)), 1e-9 * abs(question["answer"]))
    problems = []
    if not math.isclose(value, question["answer"], rel_tol=0, abs_tol=tolerance):
        problems.append(f"{formula} = {value}, but the key is {question['answer']}")
    for lang in LANGUAGES:
        stated = stated_numbers(question["prompt"][lang])
        missing = sorted(n for n in used_numbers(formula, inputs) if not any(math.isclose(n, s) for s in stated))
        if missing:
            problems.append(f"the {lang} prompt does not state {missing}")
    return problems


@pytest.mark.parametrize("question", list(numeric_questions()))
def test_numeric_key_is_reproduced_by_the_numbers_in_the_question(question):
    assert key_problems(question) == []


def test_a_key_that_the_prompt_does_not_give_is_reported():
    prompt = {lang: "One sequence of 11 tokens and one of 101 (10 and 100 scored), N = 2." for lang in LANGUAGES}
    question = {"prompt": prompt, "answer": 9.1818, "tolerance": 0.01, "formula": "(1 / (2 * 10)) / (1 / (2 * 100))"}
    assert key_problems(question) == ["(1 / (2 * 10)) / (1 / (2 * 100)) = 10.0, but the key is 9.1818"]
    question.update(answer=10, formula="(1 / (2 * 10)) / (1 / (2 * 110))")
    assert len(key_problems(question)) == 4  # the key is off, and no prompt states 110
    assert key_problems({"prompt": prompt, "answer": 10}) != []
