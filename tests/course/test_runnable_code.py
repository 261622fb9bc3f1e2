"""Every code block marked runnable in a guide runs on the CPU, in every language, so examples never rot."""

import io
import subprocess
import sys
import tokenize

import pytest
from django.conf import settings

from course.content import guide_folders, load_guide_file, runnable_blocks

LANGUAGES = [code for code, _ in settings.LANGUAGES]


def _code_tokens(code: str) -> list[str]:
    """The code's tokens with comments and string literals blanked: those are translated."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    tokens = []
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type in skip:
            continue
        tokens.append("<str>" if token.type == tokenize.STRING else token.string)
    return tokens


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
        for en_block, hi_block, fr_block in zip(blocks["en"], blocks["hi"], blocks["fr"], strict=False):
            assert _code_tokens(en_block) == _code_tokens(hi_block) == _code_tokens(fr_block), folder.name


@pytest.mark.parametrize("code", BLOCKS)
def test_runnable_block_executes(code, tmp_path):
    script = tmp_path / "block.py"
    script.write_text(code, encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
