"""The framework tabs of the guides (content/AUTHORING.md): each tab's script runs on its own, in a
fresh process, and trains the same weights as the raw PyTorch tab of its set, as the guides say."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from course.content import FRAMEWORKS, framework_tab_sets, load_guide_file
from tests.course.test_runnable_code import _code_tokens

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

RUNNER = Path(__file__).resolve().parent / "block_runner.py"
LANGUAGES = [code for code, _ in settings.LANGUAGES]
# What the guides state: after k optimizer steps every framework's weights are within 1e-6 of the raw
# PyTorch loop's (the-accumulation-loop#one-window, #mixed-precision and #ddp-no-sync,
# loss-normalization-variable-length#framework-tabs).
TOLERANCE = 1e-6
TAB_SETS = {
    "the-accumulation-loop": 3,  # the basic loop; mixed precision with clipping; DDP and no_sync (2 processes)
    "loss-normalization-variable-length": 1,  # token normalization
}


def _sets(slug, language="en"):
    return framework_tab_sets(load_guide_file(settings.CONTENT_DIR / "guides" / slug / f"{language}.md").body)


# Every tab script leaves the network it trained in a global named `model` (content/AUTHORING.md).
WRITE_WEIGHTS = """

import json as _json
import torch as _torch
_weights = _torch.cat([p.detach().flatten().double() for p in model.parameters()])
open({path!r}, "w", encoding="utf-8").write(_json.dumps(_weights.tolist()))
"""


def _until_the_model(code):
    """The script's imports, data and model, before any training."""
    lines = code.splitlines()
    return "\n".join(lines[: next(n for n, line in enumerate(lines) if line.startswith("model = ")) + 1])


def _script_paths(folder):
    """{(slug, set index, label): the script} for every tab, plus the PyTorch tab of each set cut
    before its training ("untrained"), each followed by WRITE_WEIGHTS."""
    scripts = {}
    for slug, count in TAB_SETS.items():
        for index, tabs in enumerate(_sets(slug)[:count]):
            untrained = _until_the_model(tabs["PyTorch"])
            for label, code in [*tabs.items(), ("untrained", untrained)]:
                path = folder / f"{slug}-{index}-{label}.py"
                weights = path.with_suffix(".json")
                path.write_text(code + WRITE_WEIGHTS.format(path=str(weights)), encoding="utf-8")
                scripts[slug, index, label] = path
    return scripts


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """{(slug, set index, label): (result, weights)}. Every script runs as `python script.py` would, in
    its own process with one thread, forked by tests/course/block_runner.py after one import of the
    libraries (importing Lightning and Transformers afresh for each script would take minutes)."""
    folder = tmp_path_factory.mktemp("framework-tabs")
    scripts = _script_paths(folder)
    results = folder / "results.json"
    env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0", "HOME": str(folder)}
    subprocess.run(
        [sys.executable, str(RUNNER), str(results), *map(str, scripts.values())], check=True, cwd=folder, env=env
    )
    by_path = json.loads(results.read_text(encoding="utf-8"))
    found = {}
    for key, path in scripts.items():
        weights = path.with_suffix(".json")
        found[key] = (by_path[str(path)], json.loads(weights.read_text()) if weights.exists() else None)
    return found


def test_the_guides_have_their_tab_sets_each_with_the_four_frameworks_in_order():
    for slug, count in TAB_SETS.items():
        sets = _sets(slug)
        assert len(sets) == count, slug
        for tabs in sets:
            assert tuple(tabs) == FRAMEWORKS, slug


def test_the_tab_code_is_the_same_in_every_language():
    for slug in TAB_SETS:
        by_language = {language: _sets(slug, language) for language in LANGUAGES}
        for language, sets in by_language.items():
            assert [tuple(tabs) for tabs in sets] == [tuple(tabs) for tabs in by_language["en"]], (slug, language)
            for tabs, english in zip(sets, by_language["en"], strict=True):
                for label, code in tabs.items():
                    assert _code_tokens(code) == _code_tokens(english[label]), (slug, language, label)


CASES = [(slug, index) for slug, count in TAB_SETS.items() for index in range(count)]


@pytest.mark.timeout(900)
@pytest.mark.parametrize(("slug", "index"), CASES, ids=[f"{slug}-{index}" for slug, index in CASES])
def test_every_framework_trains_the_same_weights_as_raw_pytorch(slug, index, trained):
    for label in [*FRAMEWORKS, "untrained"]:
        result, _ = trained[slug, index, label]
        assert result["returncode"] == 0, (label, result["output"])
    reference = trained[slug, index, "PyTorch"][1]
    untrained = trained[slug, index, "untrained"][1]
    assert max(abs(a - b) for a, b in zip(untrained, reference, strict=True)) > 1e-3  # training moved the weights
    for label in FRAMEWORKS:
        weights = trained[slug, index, label][1]
        difference = max(abs(a - b) for a, b in zip(weights, reference, strict=True))
        print(f"{slug} set {index} {label}: max abs weight difference {difference:.3g}")
        assert difference <= TOLERANCE, (label, difference)


# Put before a DDP tab's script: every rank records how many DistributedDataParallel objects are still
# alive when the process group is destroyed. With `leave` set it then leaves at once, so that a script
# in the order that can hang never reaches the destructor that hangs.
DDP_PROBE = """
import gc as _gc, os as _os
import torch.distributed as _dist
from torch.nn.parallel import DistributedDataParallel as _DDP

_destroy = _dist.destroy_process_group


def _probed_destroy(*args, **kwargs):
    alive = sum(isinstance(o, _DDP) for o in _gc.get_objects())
    open({folder!r} + f"/{{_dist.get_rank()}}.alive", "w").write(str(alive))
    if {leave!r}:
        _os._exit(0)
    return _destroy(*args, **kwargs)


_dist.destroy_process_group = _probed_destroy
"""


@pytest.mark.timeout(900)
def test_the_ddp_tabs_free_the_ddp_wrapper_before_destroying_the_process_group(tmp_path):
    """In the other order, DDP's reducer drops the group's last reference while holding the GIL and the
    process can hang on exit (the-accumulation-loop#ddp-no-sync). The probe finds no DDP object alive at
    the destroy call in the PyTorch and Accelerate tabs, and one per rank once their `del` line is gone."""
    ddp_tabs = _sets("the-accumulation-loop")[2]
    scripts = {}
    for label in ["PyTorch", "Accelerate"]:
        code = ddp_tabs[label]
        assert "\n    del ddp_model" in code, label
        variants = {"as written": code, "without del": code.replace("\n    del ddp_model", "\n    pass")}
        for variant, text in variants.items():
            folder = tmp_path / f"{label}-{variant.replace(' ', '-')}"
            folder.mkdir()
            path = folder / "script.py"
            probe = DDP_PROBE.format(folder=str(folder), leave=variant == "without del")
            path.write_text(probe + text, encoding="utf-8")
            scripts[label, variant] = path
    results = tmp_path / "results.json"
    env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0", "HOME": str(tmp_path)}
    subprocess.run([sys.executable, str(RUNNER), str(results), *map(str, scripts.values())], check=True, env=env)
    by_path = json.loads(results.read_text(encoding="utf-8"))
    for (label, variant), path in scripts.items():
        result = by_path[str(path)]
        assert result["returncode"] == 0, (label, variant, result["output"])
        alive = sorted(int(f.read_text()) for f in path.parent.glob("*.alive"))
        assert alive == ([0, 0] if variant == "as written" else [1, 1]), (label, variant, alive)
