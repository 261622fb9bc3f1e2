"""Results stored under the training code's last byte-hashed version move to the version of the code
that replaced it.

labs/training/version.py used to hash every byte of the package; it now hashes the syntax tree without
docstrings. The same change (issue 41) reshaped the training code itself (its settings in one pydantic
model, the loop's window-0 probe, the test hooks moved out) without changing what it computes: eleven
runs of docs/evidence/training_code_golden.py (three tasks by three loss scalings, two runs in two
processes) gave byte-identical curves, validation, gradient errors and activation peaks with the code
of OLD (main at edfbb03) and of NEW (main at 51faa7e). So a run stored under OLD is still valid, and
gets the version and fingerprint (labs.training.config.config_fingerprint) it would have now.

A fingerprint is a hash, so each row's old one is computed again from its stored settings first, and
only a row whose old fingerprint comes out the same is moved (a guides-lm run trained on guides edited
since does not, and trains again, as it would have).
"""

import hashlib
import json

from django.conf import settings
from django.db import migrations

OLD = "642affa43d23"  # bytes of labs/training/*.py at edfbb03
NEW = "c4e47bb33c69"  # syntax without docstrings of the code at 51faa7e, which trains identically
DEFAULTED = {"processes": 1, "sync": "no_sync", "size": "tiny", "precision": "fp32"}  # left out of the key
SIZED_TASK = "guides-lm"  # its key also holds the version of the guides it reads


def fingerprint(config: dict, code: str, text: str | None) -> str:
    sparse = {k: v for k, v in config.items() if k not in DEFAULTED or v != DEFAULTED[k]}
    key = {"config": sparse, "code": code}
    if text is not None:
        key["text"] = text
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()


def move_results(apps, schema_editor, old=OLD, new=NEW) -> None:
    from labs.training.version import guide_text_version  # plain file reading, no torch

    LabRun = apps.get_model("labs", "LabRun")
    text = None
    moved = []
    for run in LabRun.objects.filter(code_version=old).only("pk", "config", "fingerprint"):
        if run.config.get("task") == SIZED_TASK and text is None:
            text = guide_text_version(settings.CONTENT_DIR / "guides")
        run_text = text if run.config.get("task") == SIZED_TASK else None
        if fingerprint(run.config, old, run_text) == run.fingerprint:
            run.code_version, run.fingerprint = new, fingerprint(run.config, new, run_text)
            moved.append(run)
    LabRun.objects.bulk_update(moved, ["code_version", "fingerprint"], batch_size=500)


def move_back(apps, schema_editor) -> None:
    move_results(apps, schema_editor, old=NEW, new=OLD)


class Migration(migrations.Migration):
    dependencies = [("labs", "0004_figure_predictions")]

    operations = [migrations.RunPython(move_results, move_back)]
