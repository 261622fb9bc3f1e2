"""Reading a learner's raw values for the run settings (labs/training/config.py): one of a few
choices, a whole number within bounds, a finite number. Untrusted JSON-ish input: a value that
does not read raises FieldError with the sentence to show; nothing else is raised.
"""

from __future__ import annotations

import math
import re
from typing import Any

from .problems import Problem, gettext_noop

NOT_A_CHOICE = gettext_noop("%(name)s must be one of: %(options)s; got %(got)s.")
NOT_A_WHOLE_NUMBER = gettext_noop("%(name)s must be a whole number from %(low)s to %(high)s; got %(got)s.")

_INT_RE = re.compile(r"[+-]?\d{1,30}")
_MAX_TEXT = 64  # longer strings are not numbers we would accept anyway


class FieldError(ValueError):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem)
        self.problem = problem


def show(value: Any) -> str:
    """A short, safe rendering of a learner's value for an error message."""
    try:
        text = repr(value)
    except Exception:
        text = f"a {type(value).__name__}"
    return text if len(text) <= 40 else text[:37] + "..."


def choice(name: str, choices: tuple[str, ...]):
    def parse(value: Any) -> str:
        cleaned = value.strip().lower() if isinstance(value, str) else None
        if cleaned not in choices:
            raise FieldError(Problem(NOT_A_CHOICE, name=name, options=", ".join(choices), got=show(value)))
        return cleaned

    return parse


def integer(name: str, low: int, high: int):
    def parse(value: Any) -> int:
        def refused(got: Any) -> FieldError:
            return FieldError(Problem(NOT_A_WHOLE_NUMBER, name=name, low=f"{low:,}", high=f"{high:,}", got=show(got)))

        number: int | None = None
        if isinstance(value, bool):  # bool is an int subclass; True is not a batch size
            number = None
        elif isinstance(value, int):
            number = value
        elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
            number = int(value)  # JSON clients may send 64.0
        elif isinstance(value, str) and len(value) <= _MAX_TEXT and _INT_RE.fullmatch(value.strip()):
            number = int(value.strip())
        if number is None:
            raise refused(value)
        if not low <= number <= high:
            raise refused(number)
        return number

    return parse


def to_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, int):
            number = float(value)  # OverflowError for huge ints, caught below
        elif isinstance(value, float):
            number = value
        elif isinstance(value, str) and len(value) <= _MAX_TEXT:
            number = float(value.strip())
        else:
            return None
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) else None
