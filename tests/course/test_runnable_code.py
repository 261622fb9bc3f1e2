"""Every code block marked runnable in a guide runs on the CPU, in every language, so examples never rot."""

import subprocess
import sys

import pytest
from django.conf import settings

from course.content import guide_folders, load_guide_file, runnable_blocks

LANGUAGES = [code for code, _ in settings.LANGUAGES]


def _strip_comments(code: str) -> list[str]:
    """Code lines without comments or printed text, which are translated."""
    lines = []
    for line in code.splitlines():
        line = line.split("#", 1)[0].rstrip()
        if line and not line.lstrip().startswith("print("):
            lines.append(line)
    return lines


def _blocks():
    for folder in guide_folders(settings.CONTENT_DIR):
        for language in LANGUAGES:
            source = load_guide_file(folder / f"{language}.md")
            for index, code in enumerate(runnable_blocks(source.body)):
                yield pytest.param(code, id=f"{folder.name}-{language}-{index}")


BLOCKS = list(_blocks())


def test_every_guide_has_runnable_code():
    for folder in guide_folders(settings.CONTENT_DIR):
        assert runnable_blocks(load_guide_file(folder / "en.md").body), folder.name


def test_runnable_code_is_the_same_in_every_language():
    for folder in guide_folders(settings.CONTENT_DIR):
        blocks = {lang: runnable_blocks(load_guide_file(folder / f"{lang}.md").body) for lang in LANGUAGES}
        assert len({len(b) for b in blocks.values()}) == 1, folder.name
        for en_block, hi_block, fr_block in zip(blocks["en"], blocks["hi"], blocks["fr"]):
            assert _strip_comments(en_block) == _strip_comments(hi_block) == _strip_comments(fr_block), folder.name


@pytest.mark.parametrize("code", BLOCKS)
def test_runnable_block_executes(code, tmp_path):
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120,
        env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
