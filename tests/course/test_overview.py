"""The course page: who the course is for, the guides in order with objectives and time, the exam."""

import re

import pytest
from django.test import override_settings
from django.utils.html import escape

from course.models import GuidePage
from course.study_plan import code_lines, study_time


@pytest.fixture
def synced_content(db, guides_synced_for_module):
    """The real content, synced once for this module: its every database test reads it (tests/conftest.py)."""


pytestmark = pytest.mark.django_db

LANGUAGES = ["en", "hi", "fr"]
MINUTES = {"en": "about {m} minutes", "hi": "लगभग {m} मिनट", "fr": "environ {m} minutes"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_course_page_lists_every_guide_in_order_with_objectives_and_time(client, synced_content, language):
    response = client.get(f"/{language}/course/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    pages = list(GuidePage.objects.filter(language=language).select_related("guide").order_by("guide__order"))
    assert len(pages) == 7
    positions = [html.index(f'href="/{language}/guides/{page.guide.slug}/"') for page in pages]
    assert positions == sorted(positions)
    for page in pages:
        section = html.split(f'id="guide-{page.guide.slug}"')[1].split("</li>\n    \n")[0]
        assert escape(page.title) in section
        for objective in page.objectives:
            assert escape(objective["text"]) in section
        minutes = study_time(word_count=page.word_count, body_markdown=page.body_markdown).total
        assert MINUTES[language].format(m=minutes) in section


def test_the_page_is_translated(client, synced_content):
    assert "Who this course is for" in client.get("/en/course/").content.decode()
    hindi = client.get("/hi/course/").content.decode()
    french = client.get("/fr/course/").content.decode()
    assert "यह कोर्स किसके लिए है" in hindi and "What the certificate certifies" not in hindi
    assert "Ce qu’atteste le certificat" in french and "What the certificate certifies" not in french


def test_the_course_prerequisites_are_those_of_the_first_guide(client, synced_content):
    html = client.get("/en/course/").content.decode()
    first = GuidePage.objects.get(language="en", guide__order=1)
    assert first.prerequisites
    for item in first.prerequisites:
        assert f'href="{item["url"]}"' in html and escape(item["text"]) in html


@override_settings(QUIZ_PASS_MARK=0.75, QUIZ_EXAM_QUESTIONS=12, QUIZ_EXAM_COOLDOWN_MINUTES=45, QUIZ_EXAM_DAILY_LIMIT=2)
def test_the_exam_rules_come_from_the_settings_the_quizzes_apply(client, synced_content):
    text = re.sub(r"\s+", " ", client.get("/en/course/").content.decode())
    assert "12 questions drawn at random" in text
    assert "at least 75% correct" in text
    assert "the next one opens 45 minutes later" in text
    assert "At most 2 attempts can be started in 24 hours" in text
    assert 'href="/en/quizzes/final-exam/"' in text


@pytest.mark.parametrize("path", ["/{language}/", "/{language}/guides/"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_home_and_guide_index_link_to_the_course_page(client, synced_content, path, language):
    assert f'href="/{language}/course/"' in client.get(path.format(language=language)).content.decode()


def test_study_time_counts_reading_code_runnable_blocks_and_exercises():
    body = "\n".join(
        [
            "```python",
            *["x = 1"] * 20,
            "```",
            "``` { .python .runnable }",
            *["assert True"] * 10,
            "```",
            "## Exercises {#exercises}",
            "### One {#exercise-1}",
            "Task.",
            "### Two {#exercise-2}",
            "Task.",
        ]
    )
    assert code_lines(body) == 30
    time = study_time(word_count=1000, body_markdown=body)
    assert (time.reading, time.code, time.exercises, time.lab_and_quiz) == (5, 3 + 3, 10, 15)
    assert time.total == 40  # 36 minutes, rounded up to five


def test_study_time_rounds_up_to_five_minutes():
    assert study_time(word_count=200, body_markdown="").total == 20  # 1 + 15 = 16
    assert study_time(word_count=1000, body_markdown="").total == 20  # 5 + 15
