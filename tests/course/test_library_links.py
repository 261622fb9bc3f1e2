"""Every link to a library's code in the course points at a release tag or a commit, never a branch.

A link to `blob/main/...` or `tree/master/...` shows whatever the branch holds today: the line it
cites moves, the behaviour the guide describes may be gone, and no reader can tell which release the
sentence was true of. So a link into a repository's files (GitHub's blob, tree, raw or blame views,
and raw.githubusercontent.com) names a version tag (v5.24.0, 2.6.6) or a full commit SHA. The test
reads every file a learner sees through the course: guides in every language, guide quizzes, the
final exam, the spoken summaries, and the claim checks the quizzes name.
"""

import re
from pathlib import Path

import pytest
from django.conf import settings

CONTENT_DIR = Path(settings.BASE_DIR) / "content"
SUFFIXES = {".md", ".yaml", ".txt", ".py"}
CODE_LINK_RE = re.compile(
    r"https?://(?:github\.com/[\w.-]+/[\w.-]+/(?:blob|tree|raw|blame)"
    r"|raw\.githubusercontent\.com/[\w.-]+/[\w.-]+)/(?P<ref>[^/\s)\]\"'>#?]+)"
)
# A release tag: an optional v, then dotted numbers, then an optional suffix (v5.24.0, 2.6.6, v2.1.0-rc1).
TAG_RE = re.compile(r"v?\d+(?:\.\d+)+(?:[-.]?[A-Za-z0-9]+)*")
SHA_RE = re.compile(r"[0-9a-f]{40}")


def moving_refs(text: str) -> list[str]:
    """The refs of the code links in `text` that name neither a release tag nor a full commit SHA."""
    refs = (match["ref"] for match in CODE_LINK_RE.finditer(text))
    return [ref for ref in refs if not (TAG_RE.fullmatch(ref) or SHA_RE.fullmatch(ref))]


def course_files() -> list[Path]:
    return sorted(path for path in CONTENT_DIR.rglob("*") if path.is_file() and path.suffix in SUFFIXES)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[x](https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/engine.py)", ["master"]),
        ("see https://github.com/pytorch/vision/blob/main/torchvision/ops/misc.py;", ["main"]),
        ("https://github.com/o/r/tree/dev/src and https://raw.githubusercontent.com/o/r/main/a.py", ["dev", "main"]),
        ("[t](https://github.com/huggingface/transformers/blob/v5.24.0/src/transformers/trainer.py#L2112)", []),
        ("https://github.com/Lightning-AI/pytorch-lightning/blob/2.6.6/src/lightning/pytorch/loops/x.py#L83", []),
        ("https://github.com/pytorch/torchtune/blob/bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1/recipes/a.py", []),
        ("https://github.com/huggingface/transformers/pull/34191 and /issues/24725", []),
    ],
)
def test_the_rule_tells_a_branch_from_a_tag_or_a_commit(text, expected):
    assert moving_refs(text) == expected


def test_the_course_has_code_links_to_check():
    assert sum(len(CODE_LINK_RE.findall(path.read_text(encoding="utf-8"))) for path in course_files()) > 50


@pytest.mark.parametrize("path", course_files(), ids=lambda path: str(path.relative_to(CONTENT_DIR)))
def test_every_link_to_library_code_names_a_tag_or_a_commit(path):
    assert not moving_refs(path.read_text(encoding="utf-8")), f"{path}: link a release tag or a commit, not a branch"
