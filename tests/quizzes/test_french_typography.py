"""Quiz texts in French typography (course/typography.py), set when quizzes are synced: every
title, prompt, option, hint and explanation of every quiz and of the exam bank; a spot-the-bug
question's lines stay code; French numbers are grouped and read back."""

import pytest
from django.conf import settings
from django.utils import translation

from course.typography import typeset_hash
from quizzes.content import load_all_quizzes
from quizzes.grading import parse_number
from quizzes.models import Question, Quiz
from quizzes.selectors import number_text
from quizzes.services import quizzes_sync
from quizzes.templatetags.quiz_tags import quiz_text
from tests.french_typography import faults, plain_prose

LANGS = ["en", "hi", "fr"]


def question_texts(question: Question) -> dict[str, str]:
    texts = {"prompt": question.prompt["fr"], "hint": question.hint["fr"], "explanation": question.explanation["fr"]}
    if question.type != Question.Type.SPOT_BUG:
        texts |= {f"option {o['id']}": o["text"]["fr"] for o in question.options}
    return texts


@pytest.mark.django_db
def test_every_french_quiz_text_has_french_typography():
    """No plain or missing space before ; : ! ?, no straight quotes, no ungrouped 5-digit number,
    no decimal point in prose: in every text a learner reads in a French quiz or the exam."""
    quizzes_sync()
    found = {}
    for quiz in Quiz.objects.filter(is_published=True):
        if problems := faults(plain_prose(quiz.title["fr"])):
            found[f"{quiz.slug}: title"] = problems
        for question in quiz.questions.filter(is_active=True):
            for where, text in question_texts(question).items():
                if problems := faults(plain_prose(text)):
                    found[f"{quiz.slug}/{question.key}: {where}"] = problems
    assert not found, "\n".join(f"{where}: {problems}" for where, problems in found.items())


@pytest.mark.django_db
def test_only_french_is_set_and_code_lines_stay_as_written():
    quizzes_sync()
    sources = load_all_quizzes(settings.CONTENT_DIR, LANGS)
    for slug, source in sources.items():
        quiz = Quiz.objects.get(slug=slug)
        assert quiz.source_hash == typeset_hash(source.source_hash)
        for q in source.questions:
            stored = quiz.questions.get(key=q.id)
            assert {lang: stored.prompt[lang] for lang in ("en", "hi")} == {
                lang: q.prompt[lang] for lang in ("en", "hi")
            }
            if q.type == "spot_bug":
                assert [o["text"] for o in stored.options] == [o.text for o in q.options]
    spaced = [q.prompt["fr"] for q in Question.objects.all() if "\u202f?" in q.prompt["fr"]]
    assert spaced, "French prompts end their questions with a narrow no-break space before ?"


def test_the_no_break_spaces_reach_the_page_and_code_stays_code():
    html = quiz_text("Appelez `a ? b` ? Oui\u00a0: <b>")
    assert html == "Appelez <code>a ? b</code> ? Oui\u00a0: &lt;b&gt;"


@pytest.mark.parametrize(
    ("value", "language", "shown"),
    [
        (12345, "fr", "12\u202f345"),
        (2048, "fr", "2\u202f048"),  # a quantity, grouped from 1 000 up as the French norm does
        (999, "fr", "999"),
        (0.125, "fr", "0,125"),
        (12345, "en", "12345"),  # "12,345" typed back would read as 12.345
    ],
)
def test_numbers_are_shown_as_the_language_writes_them(value, language, shown):
    with translation.override(language):
        assert number_text(value) == shown


@pytest.mark.parametrize("typed", ["12\u202f345", "12\u00a0345", "12 345", "12345"])
def test_a_grouped_number_is_read_back(typed):
    assert parse_number(typed) == 12345
