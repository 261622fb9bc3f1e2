"""The real question banks are large and varied enough that collecting keys does not pay."""

from pathlib import Path

import pytest
from django.conf import settings

from quizzes.content import EXAM_SLUG, load_all_quizzes

CONTENT = load_all_quizzes(Path(settings.BASE_DIR) / "content", ["en", "hi", "fr"])
GUIDES = sorted(slug for slug in CONTENT if slug != EXAM_SLUG)


def test_the_exam_bank_has_at_least_eighty_questions_and_ten_spot_the_bug():
    questions = CONTENT[EXAM_SLUG].questions
    assert len(questions) >= 80
    assert sum(q.type == "spot_bug" for q in questions) >= 10


def test_at_least_half_of_the_exam_numeric_questions_draw_their_numbers_per_attempt():
    """A collected key of a drawn question is worth nothing next time, and only these may show their
    worked solution before the learner has passed (quizzes.selectors.review_open)."""
    numeric = [q for q in CONTENT[EXAM_SLUG].questions if q.type == "numeric"]
    drawn = [q for q in numeric if q.parameters]
    assert len(numeric) >= 9 and 2 * len(drawn) >= len(numeric)
    for question in drawn:  # several draws each, or there is nothing to vary
        combinations = 1
        for _name, choices in question.parameters:
            combinations *= len(set(choices))
        assert combinations >= 4, question.id


@pytest.mark.parametrize("slug", GUIDES)
def test_every_guide_quiz_has_a_spot_the_bug_question(slug):
    assert any(q.type == "spot_bug" for q in CONTENT[slug].questions)
