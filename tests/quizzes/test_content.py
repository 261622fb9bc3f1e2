import pytest
from django.conf import settings

from course.content import ContentError
from quizzes.content import load_all_quizzes
from quizzes.models import Question, Quiz
from quizzes.services import quizzes_sync, quizzes_sync_summary

LANGS = ["en", "hi", "fr"]


def test_it_loads_guide_quizzes_and_the_exam_bank(quizzes):
    guide = Quiz.objects.get(slug="demo-guide")
    exam = Quiz.objects.get(slug="final-exam")
    assert not guide.is_exam and exam.is_exam
    assert guide.questions.count() == 5
    assert exam.questions.count() == 30
    question = guide.questions.get(key="pick-one")
    assert question.prompt["hi"].startswith("हिंदी")
    assert [o["id"] for o in question.options if o["correct"]] == ["b"]


def test_syncing_twice_changes_nothing(quizzes, quiz_content):
    assert quizzes_sync(content_dir=quiz_content) == {"created": 0, "updated": 0, "unchanged": 2, "unpublished": 0}


def test_the_summary_is_one_line(db, quiz_content):
    summary = quizzes_sync_summary()
    assert summary.startswith("Quizzes: 2 created")
    assert "\n" not in summary


def test_a_removed_file_unpublishes_its_quiz(quizzes, quiz_content):
    (quiz_content / "guides/demo-guide/quiz.yaml").unlink()
    assert quizzes_sync(content_dir=quiz_content)["unpublished"] == 1
    assert not Quiz.objects.get(slug="demo-guide").is_published


def test_a_removed_question_is_retired_not_deleted(quizzes, quiz_content, helpers):
    data = helpers.guide_quiz()
    data["questions"].append(helpers.question("extra", "single"))
    del data["questions"][0]
    helpers.write_quiz(quiz_content, "demo-guide", data)
    quizzes_sync(content_dir=quiz_content)
    assert not Question.objects.get(key="pick-one").is_active
    assert Question.objects.get(key="extra").is_active


def _broken(helpers, tmp_path, change) -> str:
    data = helpers.guide_quiz()
    change(data)
    helpers.write_quiz(tmp_path / "broken", "demo-guide", data)
    with pytest.raises(ContentError) as error:
        load_all_quizzes(tmp_path / "broken", LANGS)
    return str(error.value)


def test_it_rejects_a_missing_language(helpers, tmp_path):
    message = _broken(helpers, tmp_path, lambda d: d["questions"][1]["hint"].pop("fr"))
    assert "pick-many" in message and "missing the fr version" in message
    assert "quiz.yaml" in message


def test_it_rejects_an_unknown_language(helpers, tmp_path):
    message = _broken(helpers, tmp_path, lambda d: d["title"].update(de="Quiz"))
    assert "unknown languages ['de']" in message


def test_it_rejects_languages_that_disagree_on_code(helpers, tmp_path):
    def change(d):
        d["questions"][0]["prompt"] = {"en": "When does `step()` run?", "hi": "`step()` कब?", "fr": "Quand `pas()` ?"}

    assert "fr version disagrees" in _broken(helpers, tmp_path, change)


def test_it_rejects_an_empty_translation(helpers, tmp_path):
    assert "the hi version is empty" in _broken(helpers, tmp_path, lambda d: d["title"].update(hi="  "))


def test_a_single_choice_question_needs_exactly_one_correct_option(helpers, tmp_path):
    def change(d):
        d["questions"][0]["options"][0]["correct"] = True

    assert "exactly one correct option, found 2" in _broken(helpers, tmp_path, change)


def test_it_rejects_an_unknown_type(helpers, tmp_path):
    assert "'type' must be one of" in _broken(helpers, tmp_path, lambda d: d["questions"][0].update(type="essay"))


def test_it_rejects_a_numeric_answer_that_is_not_a_number(helpers, tmp_path):
    assert "'answer': must be a number" in _broken(helpers, tmp_path, lambda d: d["questions"][2].update(answer="64"))


def test_ordering_options_take_no_correct_flag(helpers, tmp_path):
    def change(d):
        d["questions"][4]["options"][0]["correct"] = True

    assert "ordering options are listed in the correct order" in _broken(helpers, tmp_path, change)


def test_it_rejects_duplicate_question_ids(helpers, tmp_path):
    assert "repeated: ['pick-one']" in _broken(helpers, tmp_path, lambda d: d["questions"][1].update(id="pick-one"))


def test_a_guide_quiz_needs_five_questions(helpers, tmp_path):
    assert "at least 5 questions, found 4" in _broken(helpers, tmp_path, lambda d: d["questions"].pop())


def test_the_exam_bank_needs_thirty_questions(helpers, tmp_path):
    helpers.write_quiz(tmp_path / "small", "final-exam", helpers.exam_bank(size=29))
    with pytest.raises(ContentError, match="at least 30 questions, found 29"):
        load_all_quizzes(tmp_path / "small", LANGS)


def test_the_real_course_quizzes_are_valid():
    quizzes = load_all_quizzes(settings.BASE_DIR / "content", LANGS)
    assert len(quizzes) == 8  # seven guide quizzes and the final exam
    for slug, quiz in quizzes.items():
        assert len(quiz.questions) >= (80 if quiz.is_exam else 5), slug
    types = {q.type for quiz in quizzes.values() for q in quiz.questions}
    assert types == {"single", "multiple", "numeric", "ordering", "spot_bug"}


def test_every_quiz_title_opens_with_the_sites_own_word_for_it_in_each_language():
    """A title's label ("Quiz: …", "Final exam: …") is written as the menus write it, in the page's
    language: a Hindi page once showed "Final exam: …" in English above Hindi questions."""
    from django.utils import translation

    for slug, quiz in load_all_quizzes(settings.BASE_DIR / "content", LANGS).items():
        for language in LANGS:
            with translation.override(language):
                label = translation.gettext("Final exam" if quiz.is_exam else "Quiz")
            assert quiz.title[language].split(":")[0].strip() == label, (slug, language)
