"""No passage is told word for word in two guides (issue 40, fourth English reader).

The Trainer's loss-scale story once stood word for word in guides 2 and 5: a learner read the same
150 words twice, and each copy had to follow the release table of guide 4 on its own. A passage
belongs to one guide; another guide says it in a sentence and links there. Prose only: code blocks
and display math may repeat (the same loop, the same formula).
"""

import re

import pytest
from django.conf import settings

from course.content import guide_folders
from course.markdown_text import prose_lines

LANGUAGES = [code for code, _ in settings.LANGUAGES]
RUN = 40  # words: longer than any phrase a guide may share with another (a title, a link text)
WORD_RE = re.compile(r"\S+")


def shared_runs(texts: dict[str, str], run: int = RUN) -> dict[tuple[str, ...], str]:
    """Each set of texts that share a run of `run` words, with the first such run."""
    seen: dict[str, set[str]] = {}
    for name, text in texts.items():
        words = WORD_RE.findall(" ".join(prose_lines(text)))
        for start in range(len(words) - run + 1):
            seen.setdefault(" ".join(words[start : start + run]), set()).add(name)
    found: dict[tuple[str, ...], str] = {}
    for words, names in seen.items():
        if len(names) > 1:
            found.setdefault(tuple(sorted(names)), words)
    return found


def test_the_check_finds_a_passage_two_texts_share_and_nothing_else():
    passage = " ".join(f"word{i}" for i in range(RUN))
    texts = {"a": f"Intro. {passage} Outro.", "b": f"Other start. {passage}", "c": passage[: len(passage) // 2]}
    assert list(shared_runs(texts)) == [("a", "b")]
    code = f"Prose.\n\n```python\n# {passage}\n```\n"
    assert shared_runs({"a": code, "b": code}) == {}  # code may repeat
    assert shared_runs({"a": "one two three", "b": "one two three"}) == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_guide_repeats_another_word_for_word(lang):
    texts = {
        folder.name: (folder / f"{lang}.md").read_text(encoding="utf-8")
        for folder in guide_folders(settings.CONTENT_DIR)
    }
    assert len(texts) == 7
    assert {" and ".join(names): words[:120] for names, words in shared_runs(texts).items()} == {}
