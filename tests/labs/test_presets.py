import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from labs.presets import PRESETS
from labs.training.config import validate_config

GUIDE_LINKED = {
    "memory-vs-n",
    "forgot-divide-sgd",
    "forgot-divide-adamw",
    "layernorm-n-sweep",
    "batchnorm-n-sweep",
    "groupnorm-vs-batchnorm-tiny",
    "token-normalization",
    "batch-size-vs-samples",
}


def test_every_slug_the_guides_link_to_is_a_preset():
    assert GUIDE_LINKED <= set(PRESETS)


def test_every_preset_a_guide_body_links_to_exists():
    linked = set()
    for path in Path(settings.CONTENT_DIR, "guides").glob("*/*.md"):
        linked |= set(re.findall(r"/(?:en|hi|fr)/labs/presets/([a-z0-9-]+)/", path.read_text(encoding="utf-8")))
    assert "data-parallel-no-sync" in linked  # the DDP paragraph of the accumulation-loop guide
    assert linked <= set(PRESETS)


def test_every_guide_front_matter_names_an_existing_preset():
    for path in Path(settings.CONTENT_DIR, "guides").glob("*/*.md"):
        meta = yaml.safe_load(path.read_text(encoding="utf-8").split("---")[1])
        if meta.get("lab_preset"):
            assert meta["lab_preset"] in PRESETS, f"{path} links to unknown preset {meta['lab_preset']}"


@pytest.mark.parametrize("slug", sorted(PRESETS))
def test_every_preset_run_is_a_valid_config_and_a_sweep(slug):
    preset = PRESETS[slug]
    assert len(preset.runs) >= 2
    for _label, config in preset.configs():
        parsed, errors = validate_config(config)
        assert parsed is not None, errors


@pytest.mark.parametrize("slug", sorted(PRESETS))
def test_every_preset_says_what_to_look_for(slug):
    preset = PRESETS[slug]
    assert str(preset.title) and str(preset.summary) and len(str(preset.look_for)) > 40


def test_preset_steps_can_be_capped_for_small_machines(settings):
    settings.LAB_PRESET_MAX_STEPS = 3
    assert {config["steps"] for _label, config in PRESETS["layernorm-n-sweep"].configs()} == {3}
