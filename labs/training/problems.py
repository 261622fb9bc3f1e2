"""Messages about a learner's settings, translatable without importing Django.

A `Problem` is the English sentence (it is a `str`, so plain callers and the trainer just read it)
that also keeps its message id and parameters, so the web layer can show it in the reader's
language: ``gettext(problem.message_id) % problem.params`` (labs.forms.translate_problem).
"""

from __future__ import annotations

from typing import Any


def gettext_noop(message: str) -> str:
    """Marks a message id for translation (Django's extractor knows this name)."""
    return message


class Problem(str):
    message_id: str
    params: dict[str, Any]

    def __new__(cls, message_id: str, **params: Any) -> Problem:
        problem = super().__new__(cls, message_id % params if params else message_id)
        problem.message_id = message_id
        problem.params = params
        return problem
