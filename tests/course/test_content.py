"""The real course content in content/: every guide complete, in every language, same structure."""

from pathlib import Path

import pytest
from django.conf import settings

from course.content import ContentError, check_parity, guide_folders, load_all_guides, load_guide, load_guide_file
from course.rendering import render_markdown

LANGUAGES = [code for code, _ in settings.LANGUAGES]
GUIDES = load_all_guides(settings.CONTENT_DIR, LANGUAGES)
MIN_ENGLISH_WORDS = 1200
EXPECTED_GUIDES = [
    "what-is-gradient-accumulation",
    "the-accumulation-loop",
    "normalization-and-accumulation",
    "loss-normalization-variable-length",
    "gradient-accumulation-in-practice",
    "do-you-need-a-bigger-batch",
    "future-and-checklist",  # last: it sends the learner to the final exam
]


def test_the_course_has_its_seven_guides_in_order():
    ordered = sorted(GUIDES, key=lambda slug: GUIDES[slug]["en"].meta["order"])
    assert ordered == EXPECTED_GUIDES


@pytest.mark.parametrize("slug", EXPECTED_GUIDES)
def test_every_guide_exists_in_every_language_with_the_same_sections(slug):
    sources = GUIDES[slug]
    assert set(sources) == set(LANGUAGES)
    ids = {lang: [h.id for h in src.headings] for lang, src in sources.items()}
    assert ids["hi"] == ids["en"] and ids["fr"] == ids["en"]
    assert len({src.faq_count for src in sources.values()}) == 1
    assert sources["en"].faq_count >= 4


@pytest.mark.parametrize("slug", EXPECTED_GUIDES)
def test_english_guides_have_real_depth(slug):
    rendered = render_markdown(GUIDES[slug]["en"].body)
    assert rendered.word_count >= MIN_ENGLISH_WORDS, f"{slug}: {rendered.word_count} words"


@pytest.mark.parametrize("slug", EXPECTED_GUIDES)
def test_every_guide_has_a_table_or_diagram_and_a_formula(slug):
    for language, source in GUIDES[slug].items():
        html = render_markdown(source.body).html
        assert "<table>" in html or 'class="language-text' in html or "<pre>" in html, (slug, language)
        assert 'class="arithmatex"' in html, (slug, language)


@pytest.mark.parametrize("slug", EXPECTED_GUIDES)
def test_hindi_is_written_in_devanagari(slug):
    text = render_markdown(GUIDES[slug]["hi"].body).plain_text
    devanagari = sum(1 for ch in text if "\u0900" <= ch <= "\u097f")
    assert devanagari > 0.3 * sum(1 for ch in text if ch.isalpha())


@pytest.mark.parametrize("slug", EXPECTED_GUIDES)
def test_every_guide_has_a_quiz_and_a_lab_preset(slug):
    assert (settings.CONTENT_DIR / "guides" / slug / "quiz.yaml").exists()
    assert GUIDES[slug]["en"].meta["lab_preset"]
    assert GUIDES[slug]["en"].meta["lab_try"]


def _write(folder: Path, language: str, body: str, order: int = 1) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    front = f"---\norder: {order}\ntitle: T\nsummary: S\nlab_preset: memory-vs-n\nlab_try: Try it.\nrelated: []\n"
    front += "prerequisites: [{text: PyTorch, url: 'https://pytorch.org/'}]\nobjectives: {a: A., b: B., c: C.}\n---\n"
    (folder / f"{language}.md").write_text(front + body.replace("/LANG/", f"/{language}/"), encoding="utf-8")
    (folder / f"summary.{language}.txt").write_text("A spoken summary. " * 100, encoding="utf-8")  # 2 minutes


VALID_BODY = "\n".join(
    [
        "## Overview {#overview}",
        "x",
        "## Deep dive {#deep-dive}",
        "x",
        "## Technical overview {#technical-overview}",
        "x",
        "## Real-world uses {#real-world-uses}",
        "x",
        "## The future {#future}",
        "x",
        "## Putting it into practice {#putting-it-into-practice}",
        "### Why it matters {#why-it-matters}",
        "x",
        "### Keep in mind {#keep-in-mind}",
        "x",
        "### Next steps {#next-steps}",
        "x",
        "## FAQ {#faq}",
        *[f"### Q{i}? {{#faq-{i}}}\nA." for i in range(1, 5)],
        "## Exercises {#exercises}",
        *[
            f"### T{i} {{#exercise-{i}}}\n[Lab](/LANG/labs/presets/memory-vs-n/)\n"
            f'<details markdown="1">\n<summary>S</summary>\n\nA.\n</details>'
            for i in (1, 2)
        ],
    ]
)


def test_a_missing_language_is_an_error(tmp_path):
    folder = tmp_path / "guides" / "sample"
    _write(folder, "en", VALID_BODY)
    _write(folder, "fr", VALID_BODY)
    with pytest.raises(ContentError, match="missing the 'hi' version"):
        load_guide(folder, LANGUAGES)


def test_languages_that_disagree_in_structure_are_an_error(tmp_path):
    folder = tmp_path / "guides" / "sample"
    for language in LANGUAGES:
        _write(folder, language, VALID_BODY)
    _write(folder, "fr", VALID_BODY + "\n### Q5? {#faq-5}\nA.")
    with pytest.raises(ContentError, match="sections differ"):
        check_parity({lang: load_guide_file(folder / f"{lang}.md") for lang in LANGUAGES})


def test_a_heading_without_an_id_is_an_error(tmp_path):
    folder = tmp_path / "guides" / "sample"
    for language in LANGUAGES:
        _write(folder, language, VALID_BODY.replace("## Overview {#overview}", "## Overview"))
    with pytest.raises(ContentError, match="explicit"):
        load_guide(folder, LANGUAGES)


def test_a_guide_lacking_required_sections_is_an_error(tmp_path):
    folder = tmp_path / "guides" / "sample"
    for language in LANGUAGES:
        _write(folder, language, VALID_BODY.replace("## The future {#future}", "## Later {#later}"))
    with pytest.raises(ContentError, match="sections must be"):
        load_guide(folder, LANGUAGES)


def test_guide_folders_are_found_in_order(tmp_path):
    for slug in ["b-guide", "a-guide"]:
        (tmp_path / "guides" / slug).mkdir(parents=True)
    assert [p.name for p in guide_folders(tmp_path)] == ["a-guide", "b-guide"]
