"""Reads quizzes from `content/guides/<slug>/quiz.yaml` and `content/final-exam/quiz.yaml`.

Plain functions over files (see content/AUTHORING.md): the sync service and the content tests use
them. Every rule that a file breaks raises `ContentError` naming the file and the question.

A question that claims code is buggy names the script that shows it, `checked_by: <name>` for
`content/claims/<name>.py`. Only the script's existence is checked here: the scripts import torch,
which the web process never does; tests/quizzes/test_claims.py runs them.
"""

import hashlib
import itertools
import math
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from course.content import SLUG_RE, ContentError, guide_folders, load_guide_file

from . import formulas

EXAM_SLUG = "final-exam"
CLAIMS_FOLDER = "claims"  # content/claims/<name>.py: the scripts that back questions' claims
CLAIM_NAME_RE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")  # a Python file name without .py
TYPES = ("single", "multiple", "numeric", "ordering", "spot_bug")
MAX_CODE_LINES = 30
MIN_GUIDE_QUESTIONS = 5
MIN_EXAM_BANK = 30
MIN_OPTIONS = 2
QUIZ_KEYS = {"title", "questions"}
QUESTION_KEYS = {
    "single": {"id", "type", "prompt", "options", "hint", "explanation"},
    "multiple": {"id", "type", "prompt", "options", "hint", "explanation"},
    # formula / inputs: how the key follows from the prompt's numbers (checked by the tests only)
    # parameters: numbers drawn per attempt ({name: [choices]}), shown as {name}; the key is the formula's value
    "numeric": {
        "id",
        "type",
        "prompt",
        "answer",
        "tolerance",
        "formula",
        "inputs",
        "parameters",
        "hint",
        "explanation",
    },
    "ordering": {"id", "type", "prompt", "options", "hint", "explanation"},
    # spot_bug: a short loop shown with numbered lines; the learner selects the faulty line(s)
    "spot_bug": {"id", "type", "prompt", "code", "bug_lines", "hint", "explanation"},
}
# Every question may name the learning objective it examines, and the claim check that backs it
# (content/AUTHORING.md); a spot_bug question must name its claim check.
for _keys in QUESTION_KEYS.values():
    _keys |= {"objective", "checked_by"}
CODE_SPAN_RE = re.compile(r"`([^`]+)`")
EXAM_OBJECTIVE_RE = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)*):([a-z0-9]+(?:-[a-z0-9]+)*)$")


@dataclass(frozen=True)
class OptionSource:
    id: str
    text: dict[str, str]
    correct: bool


@dataclass(frozen=True)
class QuestionSource:
    id: str
    type: str
    prompt: dict[str, str]
    hint: dict[str, str]
    explanation: dict[str, str]
    options: tuple[OptionSource, ...] = ()
    answer: float | None = None
    tolerance: float = 0.0
    parameters: tuple[tuple[str, tuple[float, ...]], ...] = ()
    formula: str = ""
    objective: str = ""  # an objective id of the guide; `<guide-slug>:<id>` in the final exam
    checked_by: str = ""  # the claim check content/claims/<checked_by>.py, when the question has one


@dataclass(frozen=True)
class QuizSource:
    slug: str
    is_exam: bool
    path: Path
    title: dict[str, str]
    questions: tuple[QuestionSource, ...]
    source_hash: str


def quiz_files(content_dir: Path) -> list[tuple[str, Path]]:
    """(slug, path) of every quiz file: one per guide folder that has one, then the final exam."""
    found = [(folder.name, folder / "quiz.yaml") for folder in guide_folders(content_dir)]
    found.append((EXAM_SLUG, content_dir / EXAM_SLUG / "quiz.yaml"))
    return [(slug, path) for slug, path in found if path.exists()]


def load_all_quizzes(content_dir: Path, languages: list[str]) -> dict[str, QuizSource]:
    files = quiz_files(content_dir)
    if sum(slug == EXAM_SLUG for slug, _ in files) > 1:
        raise ContentError(f"a guide cannot be called '{EXAM_SLUG}': that slug is the final exam's")
    quizzes = {slug: load_quiz(path, slug, languages) for slug, path in files}
    check_objectives(quizzes, guide_objectives(content_dir, languages))
    check_claims(quizzes, content_dir / CLAIMS_FOLDER)
    return quizzes


def check_claims(quizzes: dict[str, QuizSource], claims_dir: Path) -> None:
    """Every `checked_by` names a script that exists (the tests run them; the web process never does)."""
    for quiz in quizzes.values():
        for question in quiz.questions:
            script = claims_dir / f"{question.checked_by}.py"
            if question.checked_by and not script.is_file():
                raise ContentError(
                    f"{quiz.path}: question '{question.id}' is checked_by '{question.checked_by}', "
                    f"but {script} does not exist"
                )


def guide_objectives(content_dir: Path, languages: list[str]) -> dict[str, dict[str, str]]:
    """Objective id -> sentence of every guide that has a text (the guide loader checks that the
    languages agree on the ids, so the first language is enough here)."""
    found = {}
    for folder in guide_folders(content_dir):
        path = folder / f"{languages[0]}.md"
        if path.exists():
            found[folder.name] = load_guide_file(path).objectives
    return found


def check_objectives(quizzes: dict[str, QuizSource], objectives: dict[str, dict[str, str]]) -> None:
    """Every question names an objective that its guide declares, and every objective of a guide is
    examined by its quiz. Objectives come from the guide texts: a quiz whose guide has no text (as in
    quiz-only test content) is checked on its own only."""
    for slug, quiz in quizzes.items():
        for question in quiz.questions:
            if not question.objective:
                if quiz.is_exam and objectives:
                    raise ContentError(
                        f"{quiz.path}: question '{question.id}' needs an 'objective: <guide-slug>:<objective-id>'"
                    )
                continue
            guide, oid = question.objective.split(":") if quiz.is_exam else (slug, question.objective)
            if oid not in objectives.get(guide, {}):
                raise ContentError(
                    f"{quiz.path}: question '{question.id}' names objective '{question.objective}', "
                    f"which guide '{guide}' does not declare"
                )
        if quiz.is_exam or not objectives.get(slug):
            continue
        unmapped = [q.id for q in quiz.questions if not q.objective]
        if unmapped:
            raise ContentError(f"{quiz.path}: guide '{slug}' has objectives; these questions name none: {unmapped}")
        unexamined = [oid for oid in objectives[slug] if oid not in {q.objective for q in quiz.questions}]
        if unexamined:
            raise ContentError(f"{quiz.path}: no question examines the objectives {unexamined}")


def load_quiz(path: Path, slug: str, languages: list[str]) -> QuizSource:
    raw = path.read_bytes()
    try:
        data = yaml.load(raw.decode("utf-8"), Loader=yaml.CSafeLoader)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise ContentError(f"{path}: not valid UTF-8 YAML: {exc}") from None
    try:
        return _quiz(data, path, slug, languages, hashlib.sha256(raw).hexdigest())
    except ContentError as exc:
        raise ContentError(f"{path}: {exc}") from None


def _quiz(data, path: Path, slug: str, languages: list[str], source_hash: str) -> QuizSource:
    if not SLUG_RE.match(slug):
        raise ContentError("quiz folder names are lowercase words joined by hyphens")
    if not isinstance(data, dict):
        raise ContentError("the file must be a mapping with 'title' and 'questions'")
    _check_keys(data, QUIZ_KEYS, QUIZ_KEYS, "the quiz")
    if not isinstance(data["questions"], list):
        raise ContentError("'questions' must be a list")
    questions = tuple(_question(q, i, languages) for i, q in enumerate(data["questions"], start=1))
    ids = [q.id for q in questions]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ContentError(f"question ids must be unique, repeated: {duplicates}")
    is_exam = slug == EXAM_SLUG
    minimum = MIN_EXAM_BANK if is_exam else MIN_GUIDE_QUESTIONS
    if len(questions) < minimum:
        raise ContentError(f"needs at least {minimum} questions, found {len(questions)}")
    for question in questions:
        _check_objective_name(question, is_exam)
    title = _localized(data["title"], languages, "title")
    return QuizSource(slug, is_exam, path, title, questions, source_hash)


def _check_objective_name(question: QuestionSource, is_exam: bool) -> None:
    if not question.objective:
        return
    pattern, form = (EXAM_OBJECTIVE_RE, "'<guide-slug>:<objective-id>'") if is_exam else (SLUG_RE, "an objective id")
    if not pattern.match(question.objective):
        raise ContentError(f"question '{question.id}': 'objective' must be {form}, found {question.objective!r}")


def _question(data, number: int, languages: list[str]) -> QuestionSource:
    if not isinstance(data, dict):
        raise ContentError(f"question {number} must be a mapping")
    qid = data.get("id")
    where = f"question '{qid}'" if isinstance(qid, str) else f"question {number}"
    if not isinstance(qid, str) or not SLUG_RE.match(qid):
        raise ContentError(f"{where}: 'id' must be lowercase words joined by hyphens")
    qtype = data.get("type")
    if qtype not in TYPES:
        raise ContentError(f"{where}: 'type' must be one of {', '.join(TYPES)}, found {qtype!r}")
    optional = {"tolerance", "formula", "inputs", "parameters", "objective", "checked_by"}
    optional |= {"answer"} if "parameters" in data else set()
    _check_keys(data, QUESTION_KEYS[qtype] - optional, QUESTION_KEYS[qtype], where)
    texts = {key: _localized(data[key], languages, f"{where}: '{key}'") for key in ("prompt", "hint", "explanation")}
    objective = data.get("objective", "")
    if not isinstance(objective, str):
        raise ContentError(f"{where}: 'objective' must be the id of a learning objective")
    texts["objective"] = objective.strip()
    texts["checked_by"] = _claim_name(data, qtype, where)
    if qtype == "numeric":
        tolerance = _number(data.get("tolerance", 0), f"{where}: 'tolerance'")
        if tolerance < 0:
            raise ContentError(f"{where}: 'tolerance' cannot be negative")
        if "parameters" in data:
            return _parameterised(data, qid, texts, tolerance, where)
        answer = _number(data["answer"], f"{where}: 'answer'")
        formula = str(data.get("formula", ""))
        return QuestionSource(qid, qtype, **texts, answer=answer, tolerance=tolerance, formula=formula)
    if qtype == "spot_bug":
        return QuestionSource(qid, qtype, **texts, options=_code_lines(data, languages, where))
    options = _options(data["options"], qtype, languages, where)
    return QuestionSource(qid, qtype, **texts, options=options)


def _claim_name(data: dict, qtype: str, where: str) -> str:
    """The question's `checked_by`, required for a spot_bug question: its whole point is a claim that
    code is buggy, which content/claims/<name>.py must show by running it."""
    if "checked_by" not in data:
        if qtype == "spot_bug":
            raise ContentError(
                f"{where}: a spot_bug question needs 'checked_by: <name>', naming the script "
                f"content/{CLAIMS_FOLDER}/<name>.py that runs its buggy and fixed code (content/AUTHORING.md)"
            )
        return ""
    name = data["checked_by"]
    if not isinstance(name, str) or not CLAIM_NAME_RE.fullmatch(name):
        raise ContentError(
            f"{where}: 'checked_by' must be the name of a file in content/{CLAIMS_FOLDER}/ without '.py' "
            f"(lowercase words joined by '_'), found {name!r}"
        )
    return name


def _code_lines(data: dict, languages: list[str], where: str) -> tuple[OptionSource, ...]:
    """A spot-the-bug question's code, one option per line (the same in every language: code is
    never translated), in the order shown; the lines listed in `bug_lines` are the faulty ones."""
    code, bug_lines = data["code"], data["bug_lines"]
    if not isinstance(code, str):
        raise ContentError(f"{where}: 'code' must be a block of text (use `code: |`)")
    lines = code.rstrip().splitlines()
    if not 2 <= len(lines) <= MAX_CODE_LINES:
        raise ContentError(f"{where}: 'code' needs between 2 and {MAX_CODE_LINES} lines, found {len(lines)}")
    if any(not line.strip() for line in lines):
        raise ContentError(f"{where}: 'code' cannot have blank lines (every line is a choice)")
    if (
        not isinstance(bug_lines, list)
        or not bug_lines
        or any(isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(lines) for n in bug_lines)
        or len(set(bug_lines)) != len(bug_lines)
    ):
        raise ContentError(f"{where}: 'bug_lines' must list the faulty line numbers, from 1 to {len(lines)}")
    return tuple(
        OptionSource(f"line-{n}", dict.fromkeys(languages, line), n in bug_lines)
        for n, line in enumerate(lines, start=1)
    )


def _parameterised(data: dict, qid: str, texts: dict, tolerance: float, where: str) -> QuestionSource:
    """A numeric question whose numbers are drawn per attempt and whose key is its formula's value."""
    if "answer" in data:
        raise ContentError(f"{where}: a question with 'parameters' has no fixed 'answer' (its formula gives it)")
    raw, formula = data["parameters"], data.get("formula")
    if not isinstance(raw, dict) or not raw:
        raise ContentError(f"{where}: 'parameters' must map names to lists of numbers")
    if not isinstance(formula, str) or not formula.strip():
        raise ContentError(f"{where}: a question with 'parameters' needs a 'formula'")
    parameters = {}
    for name, choices in raw.items():
        if not isinstance(name, str) or not formulas.PLACEHOLDER_RE.fullmatch("{" + name + "}"):
            raise ContentError(f"{where}: parameter names are letters, digits and _, found {name!r}")
        if not isinstance(choices, list) or not choices:
            raise ContentError(f"{where}: parameter '{name}' needs a list of numbers to draw from")
        parameters[name] = tuple(_number(c, f"{where}: parameter '{name}'") for c in choices)
    try:
        unknown = formulas.names(formula) - parameters.keys()
        if unknown:
            raise ContentError(f"{where}: the formula uses names that are not parameters: {sorted(unknown)}")
        for values in itertools.product(*parameters.values()):  # every draw must have a key
            formulas.evaluate(formula, dict(zip(parameters, values, strict=True)))
    except formulas.FormulaError as exc:
        raise ContentError(f"{where}: {exc}") from None
    for lang, prompt in texts["prompt"].items():
        if formulas.placeholders(prompt) != parameters.keys():
            raise ContentError(f"{where}: the {lang} prompt must show each parameter once as {{name}}")
    return QuestionSource(
        qid, "numeric", **texts, tolerance=tolerance, parameters=tuple(parameters.items()), formula=formula
    )


def _options(data, qtype: str, languages: list[str], where: str) -> tuple[OptionSource, ...]:
    if not isinstance(data, list) or len(data) < MIN_OPTIONS:
        raise ContentError(f"{where}: needs a list of at least {MIN_OPTIONS} options")
    options = []
    for index, item in enumerate(data, start=1):
        if not isinstance(item, dict):
            raise ContentError(f"{where}: option {index} must be a mapping")
        oid = item.get("id")
        if not isinstance(oid, str) or not SLUG_RE.match(oid):
            raise ContentError(f"{where}: option {index} needs an 'id' of lowercase words joined by hyphens")
        if qtype == "ordering":
            _check_keys(
                item,
                {"id", "text"},
                {"id", "text"},
                f"{where}, option '{oid}' (ordering options are listed in the correct order)",
            )
            correct = False
        else:
            _check_keys(item, {"id", "text", "correct"}, {"id", "text", "correct"}, f"{where}, option '{oid}'")
            if not isinstance(item["correct"], bool):
                raise ContentError(f"{where}, option '{oid}': 'correct' must be true or false")
            correct = item["correct"]
        text = _localized(item["text"], languages, f"{where}, option '{oid}'")
        options.append(OptionSource(oid, text, correct))
    ids = [o.id for o in options]
    if len(set(ids)) != len(ids):
        raise ContentError(f"{where}: option ids must be unique")
    correct_count = sum(o.correct for o in options)
    if qtype == "single" and correct_count != 1:
        raise ContentError(f"{where}: a single-choice question needs exactly one correct option, found {correct_count}")
    if qtype == "multiple" and correct_count < 1:
        raise ContentError(f"{where}: a multiple-select question needs at least one correct option")
    return tuple(options)


def _localized(value, languages: list[str], where: str) -> dict[str, str]:
    """A mapping with exactly the site's languages, each a non-empty text, that agree on code spans."""
    if not isinstance(value, dict):
        raise ContentError(f"{where}: must be a mapping of {', '.join(languages)}")
    missing = [lang for lang in languages if lang not in value]
    if missing:
        raise ContentError(f"{where}: missing the {', '.join(missing)} version")
    extra = sorted(set(map(str, value)) - set(languages))
    if extra:
        raise ContentError(f"{where}: unknown languages {extra}")
    texts = {}
    for lang in languages:
        text = value[lang]
        if isinstance(text, bool) or not isinstance(text, str | int | float):
            raise ContentError(f"{where}: the {lang} version must be text")
        texts[lang] = str(text).strip()
        if not texts[lang]:
            raise ContentError(f"{where}: the {lang} version is empty")
    # Code is never translated: every language must quote the same `code` spans as English.
    reference = set(CODE_SPAN_RE.findall(texts[languages[0]]))
    for lang in languages[1:]:
        spans = set(CODE_SPAN_RE.findall(texts[lang]))
        if spans != reference:
            raise ContentError(
                f"{where}: the {lang} version disagrees with {languages[0]} on code spans: {sorted(reference ^ spans)}"
            )
    return texts


def _number(value, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ContentError(f"{where}: must be a number")
    return float(value)


def _check_keys(data: dict, required: set[str], allowed: set[str], where: str) -> None:
    missing = sorted(required - data.keys())
    if missing:
        raise ContentError(f"{where}: missing {', '.join(missing)}")
    unknown = sorted(set(map(str, data)) - allowed)
    if unknown:
        raise ContentError(f"{where}: unknown keys {unknown} (allowed: {', '.join(sorted(allowed))})")
