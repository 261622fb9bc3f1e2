"""Exercises at the end of a guide: 2 to 4 tasks, each with one solution behind a <details> disclosure."""

import pytest
from django.conf import settings

from course.content import (
    ContentError,
    check_parity,
    exercise_sections,
    guide_folders,
    load_guide,
    load_guide_file,
    runnable_blocks,
)
from course.rendering import render_markdown
from tests.course.test_content import VALID_BODY

LANGUAGES = [code for code, _ in settings.LANGUAGES]

# The valid test guide of test_content, without its exercises: each test here adds its own.
GUIDE_BODY = VALID_BODY.split("## Exercises {#exercises}")[0]


def exercise(number: int, task: str = "Predict the loss.", solution: str = "It is **0.5**.", lang: str = "en") -> str:
    return (
        f"### Task {number} {{#exercise-{number}}}\n\n{task} [Lab](/{lang}/labs/presets/memory-vs-n/)\n\n"
        f'<details markdown="1">\n<summary>Solution</summary>\n\n{solution}\n\n</details>\n'
    )


def exercises(count: int = 2, lang: str = "en") -> str:
    return "## Exercises {#exercises}\n\n" + "\n".join(exercise(n, lang=lang) for n in range(1, count + 1))


def write_guide(tmp_path, body_by_language) -> object:
    folder = tmp_path / "guides" / "sample"
    folder.mkdir(parents=True, exist_ok=True)
    front = "---\norder: 1\ntitle: T\nsummary: S\nlab_preset: memory-vs-n\nlab_try: Try it.\nrelated: []\n"
    front += "prerequisites: [{text: PyTorch, url: 'https://pytorch.org/'}]\nobjectives: {a: A., b: B., c: C.}\n---\n"
    for language in LANGUAGES:
        (folder / f"{language}.md").write_text(front + body_by_language(language), encoding="utf-8")
        (folder / f"summary.{language}.txt").write_text("A spoken summary. " * 100, encoding="utf-8")  # 2 minutes
    return folder


def test_every_guide_of_the_course_ends_with_exercises_and_their_solutions():
    for folder in guide_folders(settings.CONTENT_DIR):
        counts = set()
        for language in LANGUAGES:
            source = load_guide_file(folder / f"{language}.md")
            count = len(exercise_sections(source.body))
            assert 2 <= count <= 4, (folder.name, language)
            rendered = render_markdown(source.body).html.split('id="exercises"')[1]
            assert rendered.count("<details>") == rendered.count("<summary>") == count, (folder.name, language)
            counts.add(count)
        assert len(counts) == 1, folder.name


def test_a_guide_without_exercises_is_refused(tmp_path):
    folder = write_guide(tmp_path, lambda lang: GUIDE_BODY)
    with pytest.raises(ContentError, match="sections must be"):
        load_guide(folder, LANGUAGES)


def test_a_guide_with_well_formed_exercises_loads(tmp_path):
    folder = write_guide(tmp_path, lambda lang: GUIDE_BODY + exercises(3, lang))
    sources = load_guide(folder, LANGUAGES)
    assert [h.id for h in sources["fr"].headings][-4:] == ["exercises", "exercise-1", "exercise-2", "exercise-3"]


@pytest.mark.parametrize("count", [1, 5])
def test_too_few_or_too_many_exercises_are_refused(tmp_path, count):
    folder = write_guide(tmp_path, lambda lang: GUIDE_BODY + exercises(count, lang))
    with pytest.raises(ContentError, match="2 to 4 tasks"):
        load_guide(folder, LANGUAGES)


def test_exercises_are_numbered_from_one_in_order(tmp_path):
    body = GUIDE_BODY + exercises(2).replace("{#exercise-2}", "{#exercise-7}")
    folder = write_guide(tmp_path, lambda lang: body.replace("/en/", f"/{lang}/"))
    with pytest.raises(ContentError, match="exercise-7"):
        load_guide(folder, LANGUAGES)


@pytest.mark.parametrize(
    ("broken", "message"),
    [
        (exercise(2).replace('<details markdown="1">', "<details>"), "exactly one solution"),
        (exercise(2) + '\n<details markdown="1">\n<summary>Again</summary>\n\nx\n\n</details>\n', "exactly one"),
        (exercise(2).replace("<summary>Solution</summary>", ""), "<summary>"),
        (exercise(2, solution=""), "solution is empty"),
        (exercise(2, task="").replace("[Lab](/en/labs/presets/memory-vs-n/)", ""), "task must be stated"),
        (exercise(2) + "\nA hint after the solution.\n", "nothing may follow"),
    ],
)
def test_an_exercise_without_one_well_formed_solution_is_refused(tmp_path, broken, message):
    folder = write_guide(tmp_path, lambda lang: GUIDE_BODY + "## Exercises {#exercises}\n\n" + exercise(1) + broken)
    with pytest.raises(ContentError, match=message):
        load_guide(folder, ["en"])


def test_exercises_must_link_the_guides_lab_preset_in_the_pages_language(tmp_path):
    folder = write_guide(tmp_path, lambda lang: GUIDE_BODY + exercises(2, "en"))
    with pytest.raises(ContentError, match="/hi/labs/presets/memory-vs-n/"):
        load_guide(folder, LANGUAGES)


def test_every_language_has_the_same_number_of_exercises(tmp_path):
    folder = write_guide(tmp_path, lambda lang: GUIDE_BODY + exercises(3 if lang == "fr" else 2, lang))
    with pytest.raises(ContentError, match="sections differ"):
        check_parity({lang: load_guide_file(folder / f"{lang}.md") for lang in LANGUAGES})


def test_exercises_come_last(tmp_path):
    body = GUIDE_BODY.replace("## FAQ {#faq}", exercises(2) + "\n## FAQ {#faq}")
    folder = write_guide(tmp_path, lambda lang: body.replace("/en/", f"/{lang}/"))
    with pytest.raises(ContentError, match="sections must be"):
        load_guide(folder, LANGUAGES)


def test_the_solution_renders_as_a_disclosure_with_markdown_inside():
    code = "```python\nloss = loss / N\n```"
    html = render_markdown(exercises(1) + exercise(2, solution=f"Divide by $N$: **4**.\n\n{code}")).html
    assert "<details>\n<summary>Solution</summary>" in html
    solution = html.split("<details>")[2]
    assert "<strong>4</strong>" in solution and 'class="arithmatex"' in solution
    assert 'class="codehilite"' in solution and "markdown=" not in html


def test_disclosures_keep_no_attribute_or_handler():
    html = render_markdown('<details open ontoggle="alert(1)"><summary onclick="x()">S</summary>y</details>').html
    assert "<details><summary>S</summary>y</details>" in html
    assert "ontoggle" not in html and "onclick" not in html and "open" not in html


def test_a_runnable_block_inside_a_solution_is_run_by_the_test_suite():
    body = exercise(1, solution="``` { .python .runnable }\nassert 2 * 8 == 16\n```")
    assert runnable_blocks(body) == ["assert 2 * 8 == 16"]
