"""Reads a posted answer and grades it. The browser only ever sees option positions (1, 2, 3...)
in the shuffled order of its attempt, never option ids or which option is correct.
"""

import math
import re
from collections.abc import Mapping
from fractions import Fraction

from django.http import QueryDict
from django.utils.translation import gettext as _

from . import formulas
from .models import Question

MAX_NUMBER_LENGTH = 40
DEVANAGARI_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")
GROUP_SPACES = str.maketrans("", "", " \u00a0\u202f")
POSITION_RE = re.compile(r"^[0-9]{1,3}$")
# At most three exponent digits: Fraction("1e9999999") alone would compute 10**9999999 (seconds
# of CPU per request), and no answer needs more than 1e999 (floats end near 1e308 anyway).
NUMBER_RE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?$")


class InvalidAnswer(ValueError):
    """The post cannot be an answer to this question; the message is shown to the learner."""


def parse_number(raw: str) -> float:
    """A number as learners type it: `0.125`, `0,125` (French), `1/8`, Devanagari digits, digits
    grouped by spaces (`10 000`, as a French page shows them with no-break spaces)."""
    text = (raw or "").strip().translate(DEVANAGARI_DIGITS).replace("\u2212", "-").translate(GROUP_SPACES)
    if not text or len(text) > MAX_NUMBER_LENGTH:
        raise InvalidAnswer(_("Enter a number, for example 64 or 0.125."))
    if "," in text and "." not in text and text.count(",") == 1:
        text = text.replace(",", ".")
    try:
        if "/" in text:
            numerator, _slash, denominator = text.partition("/")
            if not (NUMBER_RE.match(numerator) and NUMBER_RE.match(denominator)):
                raise ValueError
            value = float(Fraction(numerator) / Fraction(denominator))
        elif NUMBER_RE.match(text):
            value = float(text)
        else:
            raise ValueError
    except (ValueError, ZeroDivisionError, OverflowError):
        raise InvalidAnswer(_("Enter a number, for example 64 or 0.125.")) from None
    if not math.isfinite(value):
        raise InvalidAnswer(_("Enter a number, for example 64 or 0.125."))
    return value


def _position(raw: str, count: int) -> int:
    if not POSITION_RE.match(raw) or not 1 <= int(raw) <= count:
        raise InvalidAnswer(_("That option is not part of this question. Reload the page and try again."))
    return int(raw)


def parse_response(question: Question, shown: list[str], data: QueryDict) -> str | list[str] | float:
    """The learner's answer in option ids (or a number), from positions in the `shown` order."""
    if question.type == Question.Type.NUMERIC:
        return parse_number(data.get("value", ""))
    if question.type == Question.Type.SINGLE:
        choices = data.getlist("choice")
        if not choices:
            raise InvalidAnswer(_("Choose an answer."))
        if len(choices) > 1:
            raise InvalidAnswer(_("Choose only one answer."))
        return shown[_position(choices[0], len(shown)) - 1]
    if question.type in (Question.Type.MULTIPLE, Question.Type.SPOT_BUG):
        choices = data.getlist("choice")
        if not choices:
            spot_bug = question.type == Question.Type.SPOT_BUG
            raise InvalidAnswer(
                _("Select the line or lines with the bug.") if spot_bug else _("Choose at least one answer.")
            )
        positions = sorted({_position(raw, len(shown)) for raw in choices})
        return [shown[p - 1] for p in positions]
    return _ordering(shown, data)


def _ordering(shown: list[str], data: QueryDict) -> list[str]:
    """`rank-<shown position>` = the place the learner gives that step; every place used once."""
    ranks = {}
    for index, option_id in enumerate(shown, start=1):
        raw = data.get(f"rank-{index}", "")
        if not raw:
            raise InvalidAnswer(_("Give every step a position."))
        ranks[option_id] = _position(raw, len(shown))
    if sorted(ranks.values()) != list(range(1, len(shown) + 1)):
        raise InvalidAnswer(_("Give each step a different position, from 1 to %(count)d.") % {"count": len(shown)})
    return sorted(ranks, key=ranks.get)


def numeric_key(question: Question, drawn: Mapping[str, float] | None = None) -> float:
    """The right number: fixed, or the formula's value for the numbers drawn in this attempt."""
    if question.parameters:
        return formulas.evaluate(question.formula, drawn or {})
    return question.answer


def is_correct(question: Question, response, drawn: Mapping[str, float] | None = None) -> bool:
    if question.type == Question.Type.NUMERIC:
        key = numeric_key(question, drawn)
        margin = question.tolerance + 1e-9 * max(1.0, abs(key))
        return abs(float(response) - key) <= margin
    if question.type == Question.Type.SINGLE:
        option = question.option(response)
        return bool(option and option["correct"])
    if question.type in (Question.Type.MULTIPLE, Question.Type.SPOT_BUG):
        return set(response) == {o["id"] for o in question.options if o["correct"]}
    return list(response) == [o["id"] for o in question.options]


def correct_response(question: Question, drawn: Mapping[str, float] | None = None) -> str | list[str] | float:
    """The key, for the review after an attempt is finished."""
    if question.type == Question.Type.NUMERIC:
        return numeric_key(question, drawn)
    if question.type == Question.Type.SINGLE:
        return next(o["id"] for o in question.options if o["correct"])
    if question.type in (Question.Type.MULTIPLE, Question.Type.SPOT_BUG):
        return [o["id"] for o in question.options if o["correct"]]
    return [o["id"] for o in question.options]
