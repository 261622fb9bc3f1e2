"""Every quiz question names the learning objective it examines, and every objective is examined."""

import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from course.content import ContentError, guide_folders, load_all_guides
from quizzes.content import EXAM_SLUG, load_all_quizzes

LANGS = ["en", "hi", "fr"]
OBJECTIVES = {"pick": "Pick one.", "count": "Count the batch.", "order": "Order the loop."}
MAPPING = {"pick-one": "pick", "pick-many": "pick", "effective-batch": "count", "loss-scale": "count"}
MAPPING["window-order"] = "order"


def write_guide_text(root: Path, slug: str, objectives: dict | None) -> None:
    meta = {"order": 1, "title": "T", "summary": "S", "lab_preset": "p", "lab_try": "Try.", "related": []}
    if objectives is not None:
        meta["prerequisites"] = [{"text": "Basic PyTorch", "url": "https://pytorch.org/tutorials/"}]
        meta["objectives"] = objectives
    folder = root / "guides" / slug
    folder.mkdir(parents=True, exist_ok=True)
    front = yaml.safe_dump(meta, sort_keys=False)
    (folder / "en.md").write_text(f"---\n{front}---\n## Overview {{#overview}}\nx\n", encoding="utf-8")


def mapped_quiz(helpers, mapping: dict) -> dict:
    data = helpers.guide_quiz()
    for question in data["questions"]:
        if question["id"] in mapping:
            question["objective"] = mapping[question["id"]]
    return data


def load(root: Path, helpers, mapping: dict, objectives: dict | None = OBJECTIVES, exam: dict | None = None):
    write_guide_text(root, "demo-guide", objectives)
    helpers.write_quiz(root, "demo-guide", mapped_quiz(helpers, mapping))
    if exam is not None:
        helpers.write_quiz(root, "final-exam", exam)
    return load_all_quizzes(root, LANGS)


def test_a_fully_mapped_quiz_loads_with_its_objectives(helpers, tmp_path):
    quiz = load(tmp_path, helpers, MAPPING)["demo-guide"]
    assert {q.id: q.objective for q in quiz.questions} == MAPPING


def test_a_question_naming_an_unknown_objective_is_refused(helpers, tmp_path):
    with pytest.raises(ContentError, match="names objective 'speed', which guide 'demo-guide' does not declare"):
        load(tmp_path, helpers, {**MAPPING, "pick-one": "speed"})


def test_an_objective_id_must_look_like_one(helpers, tmp_path):
    with pytest.raises(ContentError, match="'objective' must be an objective id"):
        load(tmp_path, helpers, {**MAPPING, "pick-one": "Pick It"})


def test_every_question_of_a_guide_with_objectives_is_mapped(helpers, tmp_path):
    partial = {k: v for k, v in MAPPING.items() if k != "loss-scale"}
    with pytest.raises(ContentError, match=re.escape("these questions name none: ['loss-scale']")):
        load(tmp_path, helpers, partial)


def test_every_objective_is_examined(helpers, tmp_path):
    without_order = {**MAPPING, "window-order": "count"}
    with pytest.raises(ContentError, match=re.escape("no question examines the objectives ['order']")):
        load(tmp_path, helpers, without_order)


def test_exam_questions_name_guide_and_objective(helpers, tmp_path):
    exam = helpers.exam_bank()
    for question in exam["questions"]:
        question["objective"] = "demo-guide:pick"
    exam["questions"][0]["objective"] = "demo-guide:count"
    quizzes = load(tmp_path, helpers, MAPPING, exam=exam)
    assert quizzes["final-exam"].questions[0].objective == "demo-guide:count"
    exam["questions"][0]["objective"] = "count"
    with pytest.raises(ContentError, match="'<guide-slug>:<objective-id>'"):
        load(tmp_path, helpers, MAPPING, exam=exam)
    exam["questions"][0]["objective"] = "other-guide:count"
    with pytest.raises(ContentError, match="which guide 'other-guide' does not declare"):
        load(tmp_path, helpers, MAPPING, exam=exam)


def test_with_guide_texts_every_exam_question_names_an_objective(helpers, tmp_path):
    exam = helpers.exam_bank()
    with pytest.raises(ContentError, match="question 'exam-0' needs an 'objective: <guide-slug>:<objective-id>'"):
        load(tmp_path, helpers, MAPPING, exam=exam)
    for question in exam["questions"]:
        question["objective"] = "demo-guide:pick"
    assert load(tmp_path, helpers, MAPPING, exam=exam)["final-exam"].questions[-1].objective == "demo-guide:pick"


# The real course -------------------------------------------------------------------------------

GUIDES = load_all_guides(settings.CONTENT_DIR, LANGS)
QUIZZES = load_all_quizzes(settings.CONTENT_DIR, LANGS)
SLUGS = [folder.name for folder in guide_folders(settings.CONTENT_DIR)]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_guide_states_prerequisites_and_3_to_5_objectives_with_the_same_ids_in_every_language(slug):
    ids = {lang: list(source.objectives) for lang, source in GUIDES[slug].items()}
    assert 3 <= len(ids["en"]) <= 5, slug
    assert ids["hi"] == ids["en"] and ids["fr"] == ids["en"]
    for lang, source in GUIDES[slug].items():
        assert source.prerequisites, (slug, lang)
        assert all(sentence for sentence in source.objectives.values()), (slug, lang)


@pytest.mark.parametrize("slug", SLUGS)
def test_every_question_of_a_guide_quiz_names_one_of_its_objectives_and_every_objective_is_examined(slug):
    objectives = set(GUIDES[slug]["en"].objectives)
    named = [question.objective for question in QUIZZES[slug].questions]
    assert set(named) <= objectives, slug
    assert objectives <= set(named), f"{slug}: objectives without a question: {sorted(objectives - set(named))}"


def test_every_exam_question_names_an_objective_of_an_existing_guide():
    for question in QUIZZES[EXAM_SLUG].questions:
        guide, _, objective = question.objective.partition(":")
        assert objective in GUIDES[guide]["en"].objectives, question.id


def test_guide_prerequisites_come_earlier_in_the_course():
    order = {slug: GUIDES[slug]["en"].meta["order"] for slug in SLUGS}
    for slug in SLUGS:
        for item in GUIDES[slug]["en"].prerequisites:
            if "guide" in item:
                assert order[item["guide"]] < order[slug], (slug, item["guide"])
            else:
                assert item["url"].startswith("https://"), (slug, item["url"])
