"""The progress rules (course/progress.py), over plain objects: no quiz app, no database."""

from types import SimpleNamespace

import pytest

from course import progress
from course.progress import CourseEnd, QuizResult, course_progress


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


def test_the_next_action_goes_guide_then_its_quiz_then_the_exam_then_the_certificate():
    course = pages("one", "two")
    passed = QuizResult(100, True)
    cases = [
        (course_progress(course, read=set(), results={}), "start", "one"),
        (course_progress(course, read={"one"}, results={}), "quiz", "one"),  # opened: its quiz next
        (course_progress(course, read=set(), results={"one": QuizResult(20, False)}), "quiz", "one"),  # tried
        (course_progress(course, read={"one"}, results={"one": passed}), "guide", "two"),
        (course_progress(course, read=set(), results={"one": passed, "two": passed}), "exam", None),
    ]
    for state, kind, slug in cases:
        action = state.next_action
        assert (action.kind, action.step and action.step.page.guide.slug) == (kind, slug)
        assert not state.finished


def test_a_passed_exam_asks_for_its_certificate_and_a_certificate_finishes_the_course():
    course = pages("one", "two")
    claim = course_progress(course, read=set(), results={}, end=CourseEnd(claim_url="/en/quizzes/final-exam/x/"))
    assert claim.next_action.kind == "claim" and not claim.finished
    done = course_progress(course, read=set(), results={}, end=CourseEnd(certificate_url="/en/certificates/A/"))
    assert done.next_action.kind == "finished" and done.finished  # whatever the guide quizzes say


def test_the_course_end_comes_from_the_registered_provider_for_signed_in_learners_only(monkeypatch):
    monkeypatch.setattr(progress, "_course_end", [])
    learner, visitor = SimpleNamespace(is_authenticated=True), SimpleNamespace(is_authenticated=False)
    assert progress.course_end(learner) == CourseEnd()  # no certificates app: nothing after the guides
    progress.register_course_end(lambda user: CourseEnd(certificate_url="/en/certificates/A/"))
    assert progress.course_end(learner).certificate_url == "/en/certificates/A/"
    assert progress.course_end(visitor) == CourseEnd()  # never asked: the exam is taken signed in
