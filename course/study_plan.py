"""The course page's numbers: how long each guide takes, and the rules of the final exam.

Plain functions over GuidePage rows and settings; the view only renders what they return.
"""

import math
from dataclasses import dataclass

from django.conf import settings

from .content import exercise_sections, runnable_blocks
from .markdown_text import code_blocks
from .models import GuidePage
from .rendering import WORDS_PER_MINUTE

# Assumptions behind the time estimate, stated on the page (course/overview.html).
CODE_LINES_PER_MINUTE = 10  # code is read line by line, slower than prose
MINUTES_PER_RUNNABLE_BLOCK = 3  # run it, change a number, run it again
MINUTES_PER_EXERCISE = 5
MINUTES_FOR_LAB_AND_QUIZ = 15  # one run of the guide's lab preset and its quiz with explanations
ROUND_TO_MINUTES = 5


@dataclass(frozen=True)
class StudyTime:
    """Minutes one guide asks of a learner, by activity; `total` is rounded up to 5 minutes."""

    reading: int
    code: int
    exercises: int
    lab_and_quiz: int

    @property
    def total(self) -> int:
        exact = self.reading + self.code + self.exercises + self.lab_and_quiz
        return ROUND_TO_MINUTES * math.ceil(exact / ROUND_TO_MINUTES)


def code_lines(body_markdown: str) -> int:
    """Lines inside fenced code blocks (code and text diagrams), fences excluded."""
    return sum(len(block.body) for block in code_blocks(body_markdown))


def study_time(*, word_count: int, body_markdown: str) -> StudyTime:
    """Reading at the course's words per minute (word_count leaves code and math out), code by its
    lines plus a few minutes per runnable block, a fixed time per exercise, the lab and the quiz."""
    code_minutes = code_lines(body_markdown) / CODE_LINES_PER_MINUTE
    code_minutes += MINUTES_PER_RUNNABLE_BLOCK * len(runnable_blocks(body_markdown))
    return StudyTime(
        reading=math.ceil(word_count / WORDS_PER_MINUTE),
        code=math.ceil(code_minutes),
        exercises=MINUTES_PER_EXERCISE * len(exercise_sections(body_markdown)),
        lab_and_quiz=MINUTES_FOR_LAB_AND_QUIZ,
    )


@dataclass(frozen=True)
class PlannedGuide:
    page: GuidePage
    time: StudyTime


def study_times(language: str) -> dict[str, StudyTime]:
    """Each published guide's study time in `language`, by the guide's slug."""
    rows = GuidePage.objects.filter(language=language, guide__is_published=True)
    return {
        slug: study_time(word_count=words, body_markdown=body)
        for slug, words, body in rows.values_list("guide__slug", "word_count", "body_markdown")
    }


def course_plan(pages, times: dict[str, StudyTime]) -> list[PlannedGuide]:
    """The guides in course order, each with its study time (`times`: study_times())."""
    return [PlannedGuide(page, times[page.guide.slug]) for page in pages if page.guide.slug in times]


def total_hours(plan: list[PlannedGuide]) -> float:
    """The whole course in hours, to the half hour above."""
    minutes = sum(item.time.total for item in plan)
    return math.ceil(minutes / 30) / 2


def assumptions() -> dict[str, int]:
    """The figures behind `study_time`, for the page to state how it estimates."""
    return {
        "words_per_minute": WORDS_PER_MINUTE,
        "code_lines_per_minute": CODE_LINES_PER_MINUTE,
        "runnable": MINUTES_PER_RUNNABLE_BLOCK,
        "exercise": MINUTES_PER_EXERCISE,
        "lab_and_quiz": MINUTES_FOR_LAB_AND_QUIZ,
    }


def exam_rules() -> dict[str, int]:
    """The final exam's rules, from the settings the quizzes app applies (config/settings.py)."""
    return {
        "questions": settings.QUIZ_EXAM_QUESTIONS,
        "pass_mark": round(settings.QUIZ_PASS_MARK * 100),
        "cooldown_minutes": settings.QUIZ_EXAM_COOLDOWN_MINUTES,
        "daily_limit": settings.QUIZ_EXAM_DAILY_LIMIT,
    }
