"""The progress rules (course/progress.py), over plain objects: no quiz app, no database."""

from types import SimpleNamespace

import pytest

from course import progress
from course.progress import QuizResult, course_progress


def pages(*slugs):
    return [SimpleNamespace(guide=SimpleNamespace(slug=slug)) for slug in slugs]


def test_the_next_step_is_the_first_guide_whose_quiz_is_not_passed():
    course = pages("one", "two", "three")
    results = {"one": QuizResult(100, True), "two": QuizResult(40, False), "three": QuizResult(90, True)}
    state = course_progress(course, read={"one", "two"}, results=results)
    assert [step.passed for step in state.steps] == [True, False, True]
    assert [step.read for step in state.steps] == [True, True, False]
    assert state.next_step.page.guide.slug == "two"
    assert (state.passed_count, state.read_count, state.started, state.all_passed) == (2, 2, True, False)


def test_a_visitor_who_has_done_nothing_has_not_started_and_starts_at_guide_one():
    state = course_progress(pages("one", "two"), read=set(), results={})
    assert not state.started and state.next_step.page.guide.slug == "one" and state.passed_count == 0


def test_when_every_quiz_is_passed_there_is_no_next_guide():
    state = course_progress(pages("one", "two"), read=set(), results={s: QuizResult(80, True) for s in ("one", "two")})
    assert state.all_passed and state.next_step is None


def test_a_result_for_a_guide_not_in_the_course_is_ignored():
    state = course_progress(pages("one"), read={"gone"}, results={"gone": QuizResult(100, True)})
    assert state.passed_count == 0 and not state.started


@pytest.fixture
def providers(monkeypatch):
    monkeypatch.setattr(progress, "_quiz_results", list(progress._quiz_results))


def test_quiz_results_come_from_the_registered_provider_only(providers):
    progress._quiz_results.clear()
    assert progress.quiz_results(None) == {}  # no quiz app: no results, no error
    seen = []
    progress.register_quiz_results(lambda user, session: seen.append((user, session)) or {"one": QuizResult(1, False)})
    progress.register_quiz_results(lambda user, session: {"two": QuizResult(100, True)})  # replaces the first
    assert progress.quiz_results("learner", {"k": 1}) == {"two": QuizResult(100, True)}
    assert seen == []
