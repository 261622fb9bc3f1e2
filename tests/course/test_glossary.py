"""Guides, guide quizzes and the final exam follow one glossary (content/glossary.yaml).

Prose only is checked: fenced code, `code` spans, math and the glossary's allowed phrases are
skipped, because code keeps its own names (`loss.backward()`) and quoted titles stay as written.
"""

import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from course.content import guide_folders, load_guide_file
from quizzes.content import quiz_files

CONTENT_DIR = Path(settings.BASE_DIR) / "content"
GLOSSARY = yaml.safe_load((CONTENT_DIR / "glossary.yaml").read_text(encoding="utf-8"))
LANGUAGES = ("en", "hi", "fr")
DEVANAGARI = "\u0900-\u097f"
NUKTA = "\u093c"
PRECOMPOSED_NUKTA_RE = re.compile("[\u0958-\u095f]")
FENCED_RE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
CODE_SPAN_RE = re.compile(r"`[^`\n]*`")
MATH_RE = re.compile(r"\$\$.*?\$\$|\$[^$\n]+\$", re.S)
HEADING_ID_RE = re.compile(r"\{#[a-z0-9-]+\}")


def prose(text: str, lang: str) -> str:
    for pattern in (FENCED_RE, CODE_SPAN_RE, MATH_RE, HEADING_ID_RE):
        text = pattern.sub(" ", text)
    for phrase in GLOSSARY["allowed"].get(lang, []):
        text = text.replace(phrase, " ")
    return text


def word_pattern(word: str) -> re.Pattern:
    """A whole word; for Latin words, not part of an identifier such as loss.backward or loss_fn."""
    if re.search(f"[{DEVANAGARI}]", word):
        return re.compile(rf"(?<![{DEVANAGARI}]){re.escape(word)}(?![{DEVANAGARI}])")
    return re.compile(rf"(?<![\w.`/_-])(?<!\w\(){re.escape(word)}(?![\w(_/=-]|\.\w)", re.IGNORECASE)


def stem_pattern(stem: str) -> re.Pattern:
    """A word starting with this stem and not continuing it with a nukta (फ़र्क but not फ़र्क़)."""
    return re.compile(rf"(?<![{DEVANAGARI}]){re.escape(stem)}(?!{NUKTA})")


def violations(text: str, lang: str) -> list[str]:
    text = prose(text, lang)
    found = []
    for term in GLOSSARY["terms"]:
        for variant in term.get("forbidden", {}).get(lang, []):
            if word_pattern(variant).search(text):
                found.append(f"{variant!r} (write {term[lang]!r})")
    if lang == "hi":
        for stem, spelling in GLOSSARY["hindi_spelling"].items():
            if stem_pattern(stem).search(text):
                found.append(f"{stem!r} (write {spelling!r})")
        if PRECOMPOSED_NUKTA_RE.search(text):
            found.append("a precomposed nukta letter (use the combining nukta U+093C)")
    return found


def localized_strings(node, lang: str):
    """Every text of one language in a quiz file: titles, prompts, options, hints, explanations."""
    if isinstance(node, dict):
        if set(LANGUAGES) <= node.keys():
            yield str(node[lang])
            return
        for value in node.values():
            yield from localized_strings(value, lang)
    elif isinstance(node, list):
        for value in node:
            yield from localized_strings(value, lang)


def guide_texts():
    for folder in guide_folders(CONTENT_DIR):
        for lang in LANGUAGES:
            yield pytest.param(folder / f"{lang}.md", lang, id=f"{folder.name}/{lang}.md")


def quiz_texts():
    for slug, path in quiz_files(CONTENT_DIR):
        for lang in LANGUAGES:
            yield pytest.param(path, lang, id=f"{slug}/quiz.yaml/{lang}")


@pytest.mark.parametrize(("path", "lang"), list(guide_texts()))
def test_guides_use_the_glossary(path, lang):
    assert violations(path.read_text(encoding="utf-8"), lang) == []


@pytest.mark.parametrize(("path", "lang"), list(quiz_texts()))
def test_quizzes_and_the_exam_use_the_glossary(path, lang):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert violations("\n".join(localized_strings(data, lang)), lang) == []


@pytest.mark.parametrize(("path", "lang"), list(guide_texts()))
def test_fixed_sections_have_the_same_heading_in_every_guide(path, lang):
    expected = {section: names[lang] for section, names in GLOSSARY["headings"].items()}
    headings = {h.id: h.text for h in load_guide_file(path).headings if h.id in expected}
    assert headings == {section: expected[section] for section in headings}
    assert set(headings) == set(expected)


def test_the_glossary_names_every_language_and_never_forbids_its_own_words():
    for term in GLOSSARY["terms"]:
        for lang in LANGUAGES:
            assert term[lang]
            assert not any(word_pattern(v).fullmatch(term[lang]) for v in term.get("forbidden", {}).get(lang, []))
    for stem, spelling in GLOSSARY["hindi_spelling"].items():
        assert not stem_pattern(stem).match(spelling)


@pytest.mark.parametrize(
    ("text", "lang", "flagged"),
    [
        ("Diviser la loss par N.", "fr", True),
        ("Les losses par token.", "fr", True),
        ("Appeler `loss.backward()` puis loss.backward(), loss_fn et scaler.scale(loss).", "fr", False),
        ("Diviser la perte par N.", "fr", False),
        ("मॉडल को train करना", "hi", True),
        ("यह गलती है", "hi", True),
        ("यह ग़लती है", "hi", False),
        ("फ़र्क पड़ता है", "hi", True),
        ("फ़र्क़ पड़ता है", "hi", False),
        ("\u095b\u094dयादा", "hi", True),
        ("ग्रेडिएंट संचय (gradient accumulation) का वादा", "hi", False),
    ],
)
def test_the_check_flags_forbidden_variants_and_only_those(text, lang, flagged):
    assert bool(violations(text, lang)) is flagged
