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


# --------------------------------------------------------------------------------------------------
# The Trainer's release history lives in one table (issue 40, ninth English reader)
#
# Guide 4's table #trainer-loss-history gives, per transformers release, which cases hand backward()
# a loss N times too large. Guides 2, 5 and 7 once told the history again and ended the bug at three
# different releases ("4.46.0 to 4.48.0", "4.48.1 ... fixed it", "took until 4.48.1"), and guide 4's
# own prose said "from 4.46 to 4.52", while its table marks "N ×" in every row up to the pinned 5.24.0.
# Outside guide 4, a statement may not end the bug where the table does not: a range of releases whose
# last release is followed by rows still marked "N ×", or a release said to fix it (or the bug to last
# "until" it) that the table still marks "N ×". "Only" ("4.53.0 fixed only batches without labels")
# lets a partial fix through.

HISTORY_GUIDE = "loss-normalization-variable-length"
RELEASE = r"(?<![\w.])(?:4\.(?:4[6-9]|5\d)(?:\.\d+)?|5\.\d+\.\d+)(?![\w.]*\d)"
RELEASE_RE = re.compile(RELEASE)
RANGE_RE = re.compile(
    rf"({RELEASE})\s*(?:to|and|through|–|-|à|et|से|और)\s+(?:la\s+)?(?:version\s+)?({RELEASE})", re.IGNORECASE
)
UNTIL_RE = re.compile(
    rf"(?:\buntil|\bthrough|jusqu[’']à\s+la|qu[’']avec\s+la)\s+(?:version\s+)?({RELEASE})|({RELEASE})\s+तक",
    re.IGNORECASE,
)
FIXED_RE = re.compile(r"\b(?:fixed|fixes|put right|corrected)\b|corrig|a remis|ठीक", re.IGNORECASE)
ONLY_RE = re.compile(r"\bonly\b|seulement|\bn[’']a\s+\w+\s+que\b|सिर्फ़|केवल", re.IGNORECASE)
SENTENCE_END_RE = re.compile(r"(?<=[.!?।;])\s+")

Release = tuple[int, int, int | None]  # (4, 52, None) is "4.52": any 4.52.x
Row = tuple[Release, Release, bool]  # first and last release of a table row, and whether it marks "N ×"


def release(text: str) -> Release:
    parts = [int(p) for p in text.split(".")]
    return (parts[0], parts[1], parts[2] if len(parts) > 2 else None)


def table_rows(source: str) -> list[Row]:
    """The rows of guide 4's release table: `| 4.46.0, 4.46.1 | right | N × |`, `| 4.48.1 to 4.52.4 | …`."""
    rows = []
    for line in source.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or not RELEASE_RE.match(cells[0]):
            continue
        found = [release(m) for m in RELEASE_RE.findall(cells[0])]
        rows.append((found[0], found[-1], any("N ×" in cell for cell in cells[1:])))
    return rows


def _key(r: Release, last: bool) -> tuple[int, int, int]:
    return (r[0], r[1], (999 if last else 0) if r[2] is None else r[2])


def marked_wrong(r: Release, rows: list[Row]) -> bool:
    """Some row holding release r (any patch release of "4.52") marks a case N times too large."""
    return any(
        wrong and _key(lo, False) <= _key(r, True) and _key(r, False) <= _key(hi, True) for lo, hi, wrong in rows
    )


def wrong_after(r: Release, rows: list[Row]) -> bool:
    """The release right after r (after every 4.52.x for "4.52") is still marked N times too large."""
    later = sorted((lo, hi, wrong) for lo, hi, wrong in rows if _key(hi, True) > _key(r, True))
    return bool(later) and later[0][2]


def history_contradictions(text: str, rows: list[Row]) -> list[str]:
    """Statements in text that end the Trainer's bug at a release the table still marks N ×."""
    found = []
    for sentence in SENTENCE_END_RE.split(text):
        for match in RANGE_RE.finditer(sentence):
            if wrong_after(release(match.group(2)), rows):
                found.append(match.group(0))
        for match in UNTIL_RE.finditer(sentence):
            if marked_wrong(release(match.group(1) or match.group(2)), rows):
                found.append(match.group(0))
        if FIXED_RE.search(sentence) and not ONLY_RE.search(sentence):
            for match in RELEASE_RE.finditer(sentence):
                if marked_wrong(release(match.group(0)), rows) and FIXED_RE.search(sentence, match.end()):
                    found.append(sentence[match.start() : FIXED_RE.search(sentence, match.end()).end()][:80])
    return found


SAMPLE_ROWS: list[Row] = [
    ((4, 46, 0), (4, 47, 1), True),
    ((4, 48, 0), (4, 48, 0), False),
    ((4, 48, 1), (5, 24, 0), True),
]


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        ("some releases of the transformers Trainer (4.46.0 to 4.48.0) call backward", True),
        ("The Trainer got it wrong between 4.46.0 and 4.48.0, depending on the model.", True),
        ("From 4.46 to 4.52 the Trainer got one case or another wrong.", True),
        ("4.48.1 ([#35651](https://github.com/x/pull/35651)) fixed it for the models of the time.", True),
        ("the Trainer's releases took until 4.48.1 to put the division by N back", True),
        ("Transformers के Trainer के कुछ releases (4.46.0 से 4.48.0) backward को बड़ा loss देते हैं।", True),
        ("4.46.0 और 4.48.0 के बीच वह ग़लत था।", True),
        ("4.48.1 ने उस समय के models के लिए इसे ठीक किया।", True),
        ("N से भाग देने को सही जगह लौटाने में 4.48.1 तक का समय लगा।", True),
        ("certaines versions du Trainer (4.46.0 à 4.48.0) appellent backward", True),
        ("De la version 4.46 à la version 4.52, le Trainer s’est trompé.", True),
        ("Ce n’est qu’avec la 4.48.1 que le Trainer a remis la division par N au bon endroit.", True),
        ("La 4.48.1 l’a corrigé pour les modèles qui existaient alors.", True),
        ("From 4.46.0 on, every release gets one case or another wrong.", False),
        ("Two cases are still N times too large in 4.54.0 to 5.24.0.", False),
        ("The window bug ran from 4.46.0 to 4.47.1 and 4.48.0 was right.", False),  # the next row is right
        ("a subclass that ignores the count (4.53.0 fixed only batches without labels); both", False),
        ("(4.53.0 ने सिर्फ़ बिना labels वाले batches ठीक किए)", False),
        ("(la 4.53.0 n’a corrigé que les lots sans labels)", False),
        ("4.46.0 से Trainer का हर release किसी न किसी मामले में ग़लत है।", False),
        ("Depuis la 4.46.0, aucune version n’a placé la division par N au bon endroit.", False),
        ("See [trainer.py](https://github.com/h/t/blob/v4.53.0/src/trainer.py) and clip norms 5.2 to 4.1.", False),
        ("PR #39659, fixing issue #38837, in 5.24.0.", False),
    ],
)
def test_the_history_check_flags_a_bug_ended_too_early_and_nothing_else(text, flagged):
    assert bool(history_contradictions(text, SAMPLE_ROWS)) is flagged, history_contradictions(text, SAMPLE_ROWS)


def _history_texts():
    root = settings.CONTENT_DIR
    for folder in guide_folders(root):
        for path in sorted(folder.iterdir()):
            if path.suffix in {".md", ".txt", ".yaml"} and not (folder.name == HISTORY_GUIDE and path.suffix == ".md"):
                yield path
    yield root / "final-exam" / "quiz.yaml"


def test_the_release_table_is_found_and_ends_at_the_pinned_release():
    rows = table_rows((settings.CONTENT_DIR / "guides" / HISTORY_GUIDE / "en.md").read_text(encoding="utf-8"))
    assert len(rows) >= 8 and rows[0][0] == (4, 46, 0) and rows[-1][1] == (5, 24, 0)


@pytest.mark.parametrize("path", list(_history_texts()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_text_outside_guide_4_ends_the_trainer_bug_before_its_table(path):
    rows = table_rows((settings.CONTENT_DIR / "guides" / HISTORY_GUIDE / "en.md").read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    lines = prose_lines(text) if path.suffix == ".md" else text.splitlines()
    assert history_contradictions("\n".join(lines), rows) == []
