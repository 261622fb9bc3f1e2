"""Every code block marked runnable in a guide runs on the CPU on its own, as a learner who copies it
would run it, so examples never rot."""

import io
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from django.conf import settings

from course.content import framework_tab_sets, guide_folders, load_guide_file, runnable_blocks

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

LANGUAGES = [code for code, _ in settings.LANGUAGES]
RUNNER = Path(__file__).resolve().parent / "block_runner.py"


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
    """The English blocks, each alone. The Hindi and French blocks are the same code (only comments
    and strings differ: test_runnable_code_is_the_same_in_every_language) and run in their guide's
    notebook (tests/course/test_notebooks.py), so running them alone again would test nothing new."""
    for folder in guide_folders(settings.CONTENT_DIR):
        source = load_guide_file(folder / "en.md")
        for index, code in enumerate(runnable_blocks(source.body)):
            yield pytest.param(code, id=f"{folder.name}-en-{index}")


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


def _printed_strings(code: str) -> list[str]:
    """The string literal that opens each print(...) call of the code."""
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    return [
        tokens[n + 2].string
        for n, token in enumerate(tokens[:-2])
        if token.string == "print" and tokens[n + 1].string == "(" and tokens[n + 2].type == tokenize.STRING
    ]


# A printed string's words, once its {…} fields (names and format specs) are taken out.
PLACEHOLDER_RE = re.compile(r"\{[^{}]*\}")
WORD_RE = re.compile(r"[A-Za-z]{3,}")


def untranslated_printed_strings(lang: str) -> list[str]:
    found = []
    for folder in guide_folders(settings.CONTENT_DIR):
        bodies = {code: load_guide_file(folder / f"{code}.md").body for code in ("en", lang)}
        codes = {
            code: [*runnable_blocks(body), *(block for tabs in framework_tab_sets(body) for block in tabs.values())]
            for code, body in bodies.items()
        }
        for english, translated in zip(codes["en"], codes[lang], strict=True):
            for said_en, said in zip(_printed_strings(english), _printed_strings(translated), strict=False):
                if said_en == said and WORD_RE.search(PLACEHOLDER_RE.sub(" ", said_en)):
                    found.append(f"{folder.name}: {said}")
    return found


@pytest.mark.parametrize("lang", ["fr", "hi"])
def test_translated_blocks_and_tabs_print_their_language(lang):
    """What a block prints is translated with it (content/AUTHORING.md): a French or Hindi block or tab
    that prints the English block's very words shows the learner English (issue 40, third French reader:
    guide 7's blocks and every tab printed « last layer's weights »; sixth Hindi reader: guide 4's
    "embedding of token 0:", guide 7's "peak above start", "passed")."""
    assert untranslated_printed_strings(lang) == []


@pytest.fixture(scope="module")
def block_results(tmp_path_factory):
    """Every block run once, as `python block.py` in a clean environment, by tests/course/block_runner.py
    (one process per block, forked after the blocks' imports so PyTorch is imported once)."""
    folder = tmp_path_factory.mktemp("blocks")
    paths = {}
    for param in BLOCKS:
        paths[param.id] = folder / f"{param.id}.py"
        paths[param.id].write_text(param.values[0], encoding="utf-8")
    results = folder / "results.json"
    subprocess.run(
        [sys.executable, str(RUNNER), str(results), *map(str, paths.values())],
        check=True,
        timeout=120 * len(paths),
        env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"},
    )
    by_path = json.loads(results.read_text(encoding="utf-8"))
    return {block_id: by_path[str(path)] for block_id, path in paths.items()}


@pytest.mark.parametrize("code", BLOCKS)
def test_runnable_block_executes(code, block_results, request):
    result = block_results[request.node.callspec.id]
    assert result["returncode"] == 0, result["output"]


def test_the_block_runner_reports_failures_and_starts_every_block_afresh(tmp_path):
    blocks = {
        "changes_state.py": "import torch\ntorch.set_default_dtype(torch.float64)\nprint('float64 now')\n",
        "sees_fresh_state.py": "import torch\nassert torch.get_default_dtype() == torch.float32, 'state leaked'\n",
        "raises.py": "import torch\nraise ValueError('a broken example')\n",
        "exits.py": "import sys\nsys.exit(3)\n",
    }
    for name, code in blocks.items():
        (tmp_path / name).write_text(code, encoding="utf-8")
    results = tmp_path / "results.json"
    paths = [str(tmp_path / name) for name in blocks]
    subprocess.run([sys.executable, str(RUNNER), str(results), *paths], check=True, timeout=300)
    found = {Path(path).name: result for path, result in json.loads(results.read_text()).items()}
    assert found["changes_state.py"] == {"returncode": 0, "output": "float64 now\n"}
    assert found["sees_fresh_state.py"]["returncode"] == 0, found["sees_fresh_state.py"]["output"]
    assert found["raises.py"]["returncode"] == 1 and "ValueError: a broken example" in found["raises.py"]["output"]
    assert found["exits.py"]["returncode"] == 3
