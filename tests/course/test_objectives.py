"""Prerequisites and learning objectives in a guide's front matter (content/AUTHORING.md)."""

from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.utils.html import escape

from course.content import ContentError, load_all_guides, load_guide

LANGUAGES = [code for code, _ in settings.LANGUAGES]
BODY = "\n".join(
    [
        "## Overview {#overview}\nx",
        "## Deep dive {#deep-dive}\nx",
        "## Technical overview {#technical-overview}\nx",
        "## Real-world uses {#real-world-uses}\nx",
        "## The future {#future}\nx",
        "## Putting it into practice {#putting-it-into-practice}",
        "### Why it matters {#why-it-matters}\nx",
        "### Keep in mind {#keep-in-mind}\nx",
        "### Next steps {#next-steps}\nx",
        "## FAQ {#faq}",
        *[f"### Q{i}? {{#faq-{i}}}\nA." for i in range(1, 5)],
        "## Exercises {#exercises}",
        *[
            f"### T{i} {{#exercise-{i}}}\n[Lab](/LANG/labs/presets/p/)\n"
            f'<details markdown="1">\n<summary>S</summary>\n\nA.\n</details>'
            for i in (1, 2)
        ],
    ]
)
OBJECTIVES = {"compute-b": "Compute B.", "explain-memory": "Explain memory.", "spot-bug": "Spot the bug."}
PREREQUISITES = [{"text": "Basic PyTorch", "url": "https://pytorch.org/tutorials/beginner/basics/intro.html"}]


def write_guide(root: Path, slug: str, order: int, language: str, **extra) -> None:
    folder = root / "guides" / slug
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"order": order, "title": "T", "summary": "S", "lab_preset": "p", "lab_try": "Try.", "related": []}
    meta.update(extra)
    front = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
    body = BODY.replace("/LANG/", f"/{language}/")  # each language links the preset in its own
    (folder / f"{language}.md").write_text(f"---\n{front}---\n{body}", encoding="utf-8")
    (folder / f"summary.{language}.txt").write_text("A spoken summary. " * 100, encoding="utf-8")  # 2 minutes


def write_all(root: Path, slug: str = "sample", order: int = 1, **extra) -> Path:
    for language in LANGUAGES:
        write_guide(root, slug, order, language, **extra)
    return root / "guides" / slug


def test_a_guide_with_prerequisites_and_objectives_loads_them_in_order(tmp_path):
    folder = write_all(tmp_path, prerequisites=PREREQUISITES, objectives=OBJECTIVES)
    source = load_guide(folder, LANGUAGES)["hi"]
    assert list(source.objectives) == ["compute-b", "explain-memory", "spot-bug"]
    assert source.prerequisites == PREREQUISITES


@pytest.mark.parametrize(
    "extra, message",
    [
        ({"objectives": OBJECTIVES}, "front matter lacks prerequisites"),
        ({"prerequisites": PREREQUISITES}, "front matter lacks objectives"),
        ({"prerequisites": [], "objectives": OBJECTIVES}, "non-empty list"),
        ({"prerequisites": [{"text": "x"}], "objectives": OBJECTIVES}, "exactly one of 'guide"),
        (
            {"prerequisites": [{"text": "x", "guide": "a", "url": "https://a.b"}], "objectives": OBJECTIVES},
            "exactly one of 'guide",
        ),
        ({"prerequisites": [{"text": "x", "url": "http://a.b"}], "objectives": OBJECTIVES}, "https:// address"),
        ({"prerequisites": [{"text": " ", "url": "https://a.b"}], "objectives": OBJECTIVES}, "'text' must be"),
        ({"prerequisites": PREREQUISITES, "objectives": {"a": "A.", "b": "B."}}, "between 3 and 5"),
        ({"prerequisites": PREREQUISITES, "objectives": {**OBJECTIVES, "Bad Id": "x"}}, "'Bad Id' must be"),
        ({"prerequisites": PREREQUISITES, "objectives": {**OBJECTIVES, "empty": ""}}, "'empty' needs a sentence"),
    ],
)
def test_malformed_prerequisites_or_objectives_are_refused(tmp_path, extra, message):
    folder = write_all(tmp_path, **extra)
    with pytest.raises(ContentError, match=message.replace("[", r"\[").replace("(", r"\(")):
        load_guide(folder, LANGUAGES)


def test_languages_must_share_objective_ids(tmp_path):
    folder = write_all(tmp_path, prerequisites=PREREQUISITES, objectives=OBJECTIVES)
    renamed = {("compute-effective" if k == "compute-b" else k): v for k, v in OBJECTIVES.items()}
    write_guide(tmp_path, "sample", 1, "fr", prerequisites=PREREQUISITES, objectives=renamed)
    with pytest.raises(ContentError, match="objective ids must be those of the 'en' version"):
        load_guide(folder, LANGUAGES)


def test_languages_must_link_the_same_prerequisites(tmp_path):
    folder = write_all(tmp_path, prerequisites=PREREQUISITES, objectives=OBJECTIVES)
    other = [{"text": "PyTorch de base", "url": "https://pytorch.org/docs/stable/index.html"}]
    write_guide(tmp_path, "sample", 1, "fr", prerequisites=other, objectives=OBJECTIVES)
    with pytest.raises(ContentError, match="prerequisites must link the same guides"):
        load_guide(folder, LANGUAGES)


def test_a_prerequisite_guide_must_exist_and_come_earlier(tmp_path):
    write_all(tmp_path, "first", 1, prerequisites=PREREQUISITES, objectives=OBJECTIVES)
    needs_later = [{"text": "The second guide", "guide": "second"}]
    write_all(tmp_path, "second", 2, prerequisites=needs_later, objectives=OBJECTIVES)
    with pytest.raises(ContentError, match=r"must come earlier in the course: \['second'\]"):
        load_all_guides(tmp_path, LANGUAGES)
    write_all(tmp_path, "second", 2, prerequisites=[{"text": "Gone", "guide": "gone"}], objectives=OBJECTIVES)
    with pytest.raises(ContentError, match=r"prerequisite guides do not exist: \['gone'\]"):
        load_all_guides(tmp_path, LANGUAGES)
    write_all(tmp_path, "second", 2, prerequisites=[{"text": "First", "guide": "first"}], objectives=OBJECTIVES)
    assert load_all_guides(tmp_path, LANGUAGES)["second"]["en"].prerequisites[0]["guide"] == "first"


@pytest.mark.parametrize(
    ("language", "before", "after"),
    [
        ("en", "Before you start", "What you will be able to do"),
        ("hi", "शुरू करने से पहले", "इसके बाद आप क्या कर पाएँगे"),
        ("fr", "Avant de commencer", "Ce que vous saurez faire"),
    ],
)
def test_the_guide_page_opens_with_prerequisites_and_objectives(client, synced_content, language, before, after):
    from course.models import GuidePage

    page = GuidePage.objects.get(guide__slug="the-accumulation-loop", language=language)
    html = client.get(f"/{language}/guides/the-accumulation-loop/").content.decode()
    assert before in html and after in html
    assert html.index(before) < html.index('id="guide-body"')
    first, *others = page.prerequisites
    assert f'href="/{language}/guides/{first["guide"]}/"' in html
    assert all(f'href="{item["url"]}"' in html for item in others)
    for objective in page.objectives:
        assert f'<li id="objective-{objective["id"]}">{escape(objective["text"])}</li>' in html
