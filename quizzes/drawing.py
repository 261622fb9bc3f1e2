"""What one sitting of a question shows: its options in a shuffled order (lines of code keep theirs)
and, for a parameterised question, its numbers. An attempt draws them for each of its questions when
it starts; a missed question draws them again each time it comes back for review."""

import random

from . import formulas
from .models import Question


def option_order(question: Question, rng: random.Random) -> list[str]:
    """The question's option ids in the order shown."""
    ids = [o["id"] for o in question.options]
    if question.type == Question.Type.SPOT_BUG:
        return ids  # lines of code keep their order
    shown = ids[:]
    rng.shuffle(shown)
    # An ordering question shown already in the right order would give its answer away.
    while question.type == Question.Type.ORDERING and shown == ids and len(ids) > 1:
        rng.shuffle(shown)
    return shown


def draw(question: Question, rng: random.Random) -> tuple[list[str], dict[str, float]]:
    """One sitting's option order ([] without options) and drawn numbers ({} without parameters)."""
    order = option_order(question, rng) if question.options else []
    return order, formulas.draw(question.parameters, rng) if question.parameters else {}


def matches(question: Question, order: list[str]) -> bool:
    """Whether `order` still shows exactly the question's options (a content sync may change them)."""
    return sorted(order) == sorted(o["id"] for o in question.options)
