"""Reads guides from `content/guides/<slug>/<lang>.md` and checks their structure.

Plain functions over files: the sync command and the content tests both use them.
"""

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .markdown_text import CODE, PROSE, Block, classified_lines, code_blocks, prose_lines
from .narration import SUMMARY_SECONDS, spoken_seconds

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
HEADING_RE = re.compile(r"^(#{2,3})\s+(.+?)\s*\{#([a-z0-9-]+)\}\s*$")
REQUIRED_H2 = [
    "overview",
    "deep-dive",
    "technical-overview",
    "real-world-uses",
    "future",
    "putting-it-into-practice",
    "faq",
    "exercises",
]
REQUIRED_PRACTICE_H3 = ["why-it-matters", "keep-in-mind", "next-steps"]
MIN_FAQ = 4
# The last section: 2 to 4 tasks, each followed by its solution in a disclosure (AUTHORING.md).
EXERCISES_H2 = REQUIRED_H2[-1]
MIN_EXERCISES, MAX_EXERCISES = 2, 4
EXERCISE_ID_RE = re.compile(r"^exercise-(\d+)$")
DISCLOSURE_OPEN = '<details markdown="1">'
SUMMARY_RE = re.compile(r"^<summary>\S.*</summary>$")
# prerequisites / objectives: what a learner needs first and can do afterwards (AUTHORING.md).
FRONT_MATTER_KEYS = {"order", "title", "summary", "lab_preset", "lab_try", "related", "prerequisites", "objectives"}
MIN_OBJECTIVES, MAX_OBJECTIVES = 3, 5


class ContentError(ValueError):
    """A content file breaks the authoring rules (see content/AUTHORING.md)."""


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    id: str


@dataclass
class GuideSource:
    slug: str
    language: str
    path: Path
    meta: dict
    body: str
    headings: list[Heading] = field(default_factory=list)
    spoken_summary: str = ""  # summary.<lang>.txt beside the guide, read by the narration

    @property
    def source_hash(self) -> str:
        return hashlib.sha256(self.path.read_bytes() + self.spoken_summary.encode()).hexdigest()

    @property
    def faq_count(self) -> int:
        return sum(1 for h in self.headings if h.level == 3 and h.id.startswith("faq-"))

    @property
    def objectives(self) -> dict[str, str]:
        """Objective id -> sentence, in the order written (checked by `check_course_v2`)."""
        return {str(k): str(v).strip() for k, v in (self.meta.get("objectives") or {}).items()}

    @property
    def prerequisites(self) -> list[dict[str, str]]:
        """[{'text': ..., 'guide': slug} or {'text': ..., 'url': ...}] (checked by `check_course_v2`)."""
        return [{k: str(v).strip() for k, v in item.items()} for item in self.meta.get("prerequisites") or []]


def split_front_matter(text: str, path: Path) -> tuple[dict, str]:
    if not text.startswith("---\n"):
        raise ContentError(f"{path}: must start with YAML front matter between '---' lines")
    end = text.find("\n---\n", 4)
    if end == -1:
        raise ContentError(f"{path}: front matter is not closed by a '---' line")
    try:
        meta = yaml.load(text[4:end], Loader=yaml.CSafeLoader) or {}
    except yaml.YAMLError as exc:
        raise ContentError(f"{path}: front matter is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise ContentError(f"{path}: front matter must be a mapping")
    return meta, text[end + 5 :]


def parse_headings(body: str) -> list[Heading]:
    """h2/h3 headings outside code and math blocks; every one must carry an explicit {#id}."""
    headings = []
    for line in prose_lines(body):
        if not re.match(r"^#{2,3}\s", line):
            continue
        match = HEADING_RE.match(line)
        if not match:
            raise ContentError(f"heading without an explicit {{#id}}: {line!r}")
        headings.append(Heading(len(match.group(1)), match.group(2), match.group(3)))
    return headings


def load_guide_file(path: Path) -> GuideSource:
    meta, body = split_front_matter(path.read_text(encoding="utf-8"), path)
    missing = FRONT_MATTER_KEYS - meta.keys()
    if missing:
        raise ContentError(f"{path}: front matter lacks {', '.join(sorted(missing))}")
    try:
        headings = parse_headings(body)
    except ContentError as exc:
        raise ContentError(f"{path}: {exc}") from None
    check_course_v2(meta, path)
    return GuideSource(path.parent.name, path.stem, path, meta, body, headings)


def check_course_v2(meta: dict, path: Path) -> None:
    """`prerequisites` and `objectives` are well formed (their presence is checked with the other keys)."""
    _check_prerequisites(meta["prerequisites"], path)
    _check_objectives(meta["objectives"], path)


def _check_prerequisites(items, path: Path) -> None:
    if not isinstance(items, list) or not items:
        raise ContentError(
            f"{path}: 'prerequisites' must be a non-empty list of items with 'text' and 'guide' or 'url'"
        )
    for number, item in enumerate(items, start=1):
        where = f"{path}: prerequisite {number}"
        if not isinstance(item, dict) or set(item) not in ({"text", "guide"}, {"text", "url"}):
            raise ContentError(f"{where} needs 'text' and exactly one of 'guide: <slug>' or 'url: https://...'")
        if not isinstance(item["text"], str) or not item["text"].strip():
            raise ContentError(f"{where}: 'text' must be a non-empty sentence")
        if "guide" in item and not (isinstance(item["guide"], str) and SLUG_RE.match(item["guide"])):
            raise ContentError(f"{where}: 'guide' must be a guide slug, found {item['guide']!r}")
        if "url" in item and not (isinstance(item["url"], str) and re.fullmatch(r"https://\S+", item["url"])):
            raise ContentError(f"{where}: 'url' must be an https:// address, found {item['url']!r}")


def _check_objectives(objectives, path: Path) -> None:
    if not isinstance(objectives, dict) or not MIN_OBJECTIVES <= len(objectives) <= MAX_OBJECTIVES:
        raise ContentError(
            f"{path}: 'objectives' must map between {MIN_OBJECTIVES} and {MAX_OBJECTIVES} ids to sentences"
        )
    for oid, sentence in objectives.items():
        if not isinstance(oid, str) or not SLUG_RE.match(oid):
            raise ContentError(f"{path}: objective id {oid!r} must be lowercase words joined by hyphens")
        if not isinstance(sentence, str) or not sentence.strip():
            raise ContentError(f"{path}: objective '{oid}' needs a sentence saying what the learner can do")


def check_anatomy(source: GuideSource) -> None:
    h2 = [h.id for h in source.headings if h.level == 2]
    if h2 != REQUIRED_H2:
        raise ContentError(f"{source.path}: sections must be {REQUIRED_H2}, found {h2}")
    ids = [h.id for h in source.headings]
    if len(ids) != len(set(ids)):
        raise ContentError(f"{source.path}: heading ids must be unique")
    start = ids.index("putting-it-into-practice")
    if ids[start + 1 : start + 4] != REQUIRED_PRACTICE_H3:
        raise ContentError(f"{source.path}: 'putting-it-into-practice' needs {REQUIRED_PRACTICE_H3}")
    if source.faq_count < MIN_FAQ:
        raise ContentError(f"{source.path}: the FAQ needs at least {MIN_FAQ} questions ({{#faq-N}})")
    check_exercises(source)


def exercise_sections(body: str) -> dict[str, list[str]]:
    """Exercise id -> the lines under its heading, from the `## ... {#exercises}` section."""
    sections, current, in_section = {}, None, False
    for kind, line in classified_lines(body):
        heading = HEADING_RE.match(line) if kind == PROSE else None
        if heading and len(heading.group(1)) == 2:
            in_section, current = heading.group(3) == EXERCISES_H2, None
        elif heading and in_section:
            current = sections.setdefault(heading.group(3), [])
        elif current is not None:
            current.append(line)
    return sections


def check_exercises(source: GuideSource) -> None:
    """Exercises 1..k (2 to 4), each a task, then its solution in one disclosure, then nothing else."""
    sections = exercise_sections(source.body)
    ids = list(sections)
    expected = [f"exercise-{n}" for n in range(1, len(ids) + 1)]
    if not MIN_EXERCISES <= len(ids) <= MAX_EXERCISES or ids != expected:
        raise ContentError(
            f"{source.path}: 'exercises' needs {MIN_EXERCISES} to {MAX_EXERCISES} tasks "
            f"headed {{#exercise-1}}, {{#exercise-2}}...; found {ids}"
        )
    for exercise_id, lines in sections.items():
        _check_solution(lines, f"{source.path}: {exercise_id}")
    link = f"/{source.language}/labs/presets/{source.meta['lab_preset']}/"
    if link not in "\n".join(line for lines in sections.values() for line in lines):
        raise ContentError(f"{source.path}: an exercise must send the learner to the guide's lab preset ({link})")


def _check_solution(lines: list[str], where: str) -> None:
    stripped = [line.strip() for line in lines]
    if stripped.count(DISCLOSURE_OPEN) != 1 or stripped.count("</details>") != 1:
        raise ContentError(f"{where}: needs exactly one solution, between '{DISCLOSURE_OPEN}' and '</details>'")
    start, end = stripped.index(DISCLOSURE_OPEN), stripped.index("</details>")
    if not any(stripped[:start]):
        raise ContentError(f"{where}: the task must be stated before its solution")
    if start + 1 >= len(stripped) or not SUMMARY_RE.match(stripped[start + 1]):
        raise ContentError(f"{where}: the line after '{DISCLOSURE_OPEN}' must be '<summary>...</summary>'")
    if end < start or not any(stripped[start + 2 : end]):
        raise ContentError(f"{where}: the solution is empty")
    if any(stripped[end + 1 :]):
        raise ContentError(f"{where}: nothing may follow the solution's '</details>'")


def load_guide(folder: Path, languages: list[str]) -> dict[str, GuideSource]:
    """All languages of one guide, checked for anatomy and for parity between languages."""
    if not SLUG_RE.match(folder.name):
        raise ContentError(f"{folder}: guide folder names are lowercase words joined by hyphens")
    sources = {}
    for language in languages:
        path = folder / f"{language}.md"
        if not path.exists():
            raise ContentError(f"{folder}: missing the '{language}' version ({path.name})")
        sources[language] = load_guide_file(path)
        check_anatomy(sources[language])
    check_parity(sources)
    for language, source in sources.items():
        source.spoken_summary = load_spoken_summary(folder / f"summary.{language}.txt", language)
    return sources


def load_spoken_summary(path: Path, language: str) -> str:
    """The summary written for listening; its length must take 1.5 to 3 minutes to say."""
    if not path.exists():
        raise ContentError(f"{path.parent}: missing the spoken summary '{path.name}' (see AUTHORING.md)")
    text = path.read_text(encoding="utf-8").strip()
    low, high = SUMMARY_SECONDS
    seconds = spoken_seconds(text, language)
    if not low <= seconds <= high:
        raise ContentError(
            f"{path}: a spoken summary takes {low / 60:g} to {high / 60:g} minutes to say; "
            f"this one takes {seconds / 60:.1f} minutes at the voice's rate"
        )
    return text


def check_parity(sources: dict[str, GuideSource]) -> None:
    reference_lang, reference = next(iter(sources.items()))
    expected = [h.id for h in reference.headings]
    for _language, source in sources.items():
        found = [h.id for h in source.headings]
        if found != expected:
            raise ContentError(
                f"{source.path}: sections differ from '{reference_lang}': expected {expected}, found {found}"
            )
        for key in ("order", "lab_preset", "related"):
            if source.meta.get(key) != reference.meta.get(key):
                raise ContentError(f"{source.path}: '{key}' differs from the '{reference_lang}' version")
        if list(source.objectives) != list(reference.objectives):
            raise ContentError(
                f"{source.path}: objective ids must be those of the '{reference_lang}' version, in the same order: "
                f"expected {list(reference.objectives)}, found {list(source.objectives)}"
            )
        if _targets(source) != _targets(reference):
            raise ContentError(
                f"{source.path}: prerequisites must link the same guides and addresses, in the same order, "
                f"as the '{reference_lang}' version"
            )


def _targets(source: GuideSource) -> list[str]:
    return [item.get("guide") or item.get("url") for item in source.prerequisites]


def guide_folders(content_dir: Path) -> list[Path]:
    root = content_dir / "guides"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.exists() else []


def load_all_guides(content_dir: Path, languages: list[str]) -> dict[str, dict[str, GuideSource]]:
    guides = {folder.name: load_guide(folder, languages) for folder in guide_folders(content_dir)}
    for slug, sources in guides.items():
        meta = next(iter(sources.values())).meta
        unknown = [r for r in meta.get("related") or [] if r not in guides]
        if unknown:
            raise ContentError(f"guide '{slug}': related guides do not exist: {unknown}")
        needed = [p["guide"] for p in next(iter(sources.values())).prerequisites if "guide" in p]
        unknown = [g for g in needed if g not in guides]
        if unknown:
            raise ContentError(f"guide '{slug}': prerequisite guides do not exist: {unknown}")
        later = [g for g in needed if next(iter(guides[g].values())).meta["order"] >= meta["order"]]
        if later:
            raise ContentError(f"guide '{slug}': prerequisite guides must come earlier in the course: {later}")
    return guides


RUNNABLE_INFO_RE = re.compile(r"^\{\s*\.python\s+\.runnable\s*\}$")


def is_runnable(block: Block) -> bool:
    """A ``` { .python .runnable } block: the test suite executes it, a notebook makes it a code cell."""
    return block.kind == CODE and bool(RUNNABLE_INFO_RE.match(block.info))


def runnable_blocks(body: str) -> list[str]:
    """The code of every runnable block, in order."""
    return [block.text for block in code_blocks(body) if is_runnable(block)]


FRAMEWORKS = ("PyTorch", "Accelerate", "Lightning", "Trainer")
TAB_RE = re.compile(r'^===\+?!?\s+"(?P<label>[^"]+)"\s*$')
FRAMEWORK_FENCE_RE = re.compile(r"^```\s*\{\s*\.python\s+\.framework\s*\}\s*$")


def framework_tab_sets(body: str) -> list[dict[str, str]]:
    """Every set of framework tabs (content/AUTHORING.md), in page order: {tab label: the code of its
    ``` { .python .framework } block}. A set ends at the first line that is neither a tab's title,
    indented tab content nor blank."""
    sets, label, code = [], None, None
    for line in body.splitlines():
        if code is not None:
            if line.strip() == "```":
                sets[-1][label], code = "\n".join(code), None
            else:
                code.append(line[4:])  # a tab's content is indented by four spaces
        elif tab := TAB_RE.match(line):
            if label is None:
                sets.append({})
            label = tab["label"]
        elif label is not None and FRAMEWORK_FENCE_RE.match(line.strip()):
            code = []
        elif label is not None and line.strip() and not line.startswith("    "):
            label = None
    return sets
