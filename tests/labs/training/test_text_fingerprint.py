"""A guides-lm run's fingerprint follows the guide text it learns from: a finished twin trained on
older text is not reused. Other tasks' fingerprints do not depend on the guides."""

import shutil

import pytest

from labs.services import run_fingerprint
from labs.training.config import config_fingerprint, validate_config
from labs.training.version import DEFAULT_TEXT_DIR, guide_text_files, guide_text_version

pytestmark = pytest.mark.slow  # bin/unit leaves it out (tests/conftest.py)

GUIDES_LM = {
    "task": "guides-lm",
    "norm": "layer",
    "effective_batch_size": 16,
    "accumulation_steps": 4,
    "loss_scaling": "mean",
    "optimizer": "adamw",
    "learning_rate": 0.003,
    "steps": 5,
    "seed": 0,
}
DIGITS = {**GUIDES_LM, "task": "digits-mlp", "norm": "none"}


@pytest.fixture
def guides(tmp_path):
    copy = tmp_path / "guides"
    shutil.copytree(DEFAULT_TEXT_DIR, copy)
    return copy


def config(data):
    parsed, errors = validate_config(data)
    assert parsed is not None, errors
    return parsed


def test_the_same_text_in_another_folder_gives_the_same_fingerprint(guides):
    assert guide_text_version(guides) == guide_text_version(DEFAULT_TEXT_DIR)
    assert config_fingerprint(config(GUIDES_LM), guides) == config_fingerprint(config(GUIDES_LM))


def test_editing_a_guide_changes_a_guides_lm_fingerprint_and_no_other(guides):
    before = config_fingerprint(config(GUIDES_LM), guides), config_fingerprint(config(DIGITS), guides)
    english = guides / "the-accumulation-loop" / "en.md"
    english.write_text(english.read_text(encoding="utf-8") + "\nOne more paragraph.\n", encoding="utf-8")
    after = config_fingerprint(config(GUIDES_LM), guides), config_fingerprint(config(DIGITS), guides)
    assert after[0] != before[0]
    assert after[1] == before[1]


def test_only_the_files_guides_lm_reads_count(guides):
    before = guide_text_version(guides)
    (guides / "the-accumulation-loop" / "quiz.yaml").write_text("changed: true\n", encoding="utf-8")
    (guides / "the-accumulation-loop" / "summary.en.txt").write_text("changed\n", encoding="utf-8")
    assert guide_text_version(guides) == before
    assert {path.stem for path in guide_text_files(guides)} == {"en", "hi", "fr"}


def test_the_site_fingerprints_runs_with_its_own_guides(guides, settings):
    default = run_fingerprint(config(GUIDES_LM))
    settings.CONTENT_DIR = guides.parent
    assert run_fingerprint(config(GUIDES_LM)) == default
    french = guides / "what-is-gradient-accumulation" / "fr.md"
    french.write_text(french.read_text(encoding="utf-8").replace("gradient", "gradients", 1), encoding="utf-8")
    assert run_fingerprint(config(GUIDES_LM)) != default
