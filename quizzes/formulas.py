"""Formulas of numeric questions: how a key follows from the numbers a question states.

A parameterised question draws its numbers per attempt (`parameters: {b: [8, 16], N: [2, 4]}`) and
its prompt shows them through `{b}` and `{N}`; the key is computed here, on the server, from the
question's `formula`. Evaluation walks the parsed expression and allows numbers, parameter names,
brackets and + - * / // ** only: an author's typo can never run code. `//` floors, so a count that
rounds up, such as the optimizer steps of an epoch with a partial last window, is written as the
ceiling it is: `(1000 / 8 + 4 - 1) // 4` (issue 40).
"""

import ast
import math
import operator
import random
import re
from collections.abc import Callable, Mapping

OPERATORS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Pow: operator.pow,
}
MAX_EXPONENT = 64
PLACEHOLDER_RE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class FormulaError(ValueError):
    """A formula that is not plain arithmetic over known names, or that has no finite value."""


def evaluate(formula: str, values: Mapping[str, float] | None = None) -> float:
    """The value of `formula` with `values` for its names."""
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError:
        raise FormulaError(f"not an arithmetic expression: {formula!r}") from None
    try:
        result = float(_value(tree.body, values or {}))
    except (ZeroDivisionError, OverflowError) as exc:
        raise FormulaError(f"{formula!r} has no value: {exc}") from None
    if not math.isfinite(result):
        raise FormulaError(f"{formula!r} is not finite")
    return result


def _value(node: ast.AST, values: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in values:
            raise FormulaError(f"unknown name {node.id!r}")
        return values[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _value(node.operand, values)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        left, right = _value(node.left, values), _value(node.right, values)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise FormulaError(f"exponents above {MAX_EXPONENT} are refused")
        return OPERATORS[type(node.op)](left, right)
    raise FormulaError(f"not allowed in a formula: {ast.dump(node)[:60]}")


def names(formula: str) -> set[str]:
    """The parameter names a formula uses."""
    try:
        tree = ast.parse(formula, mode="eval")
    except SyntaxError:
        raise FormulaError(f"not an arithmetic expression: {formula!r}") from None
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER_RE.findall(text))


def draw(parameters: Mapping[str, list[float]], rng: random.Random) -> dict[str, float]:
    """One value per parameter, each chosen from its list."""
    return {name: rng.choice(choices) for name, choices in parameters.items()}


def fill(text: str, values: Mapping[str, float], number_format: Callable[[float], str]) -> str:
    """`text` with each `{name}` replaced by its drawn value, written as the page's language writes numbers."""
    return PLACEHOLDER_RE.sub(lambda m: number_format(values[m.group(1)]) if m.group(1) in values else m.group(0), text)
