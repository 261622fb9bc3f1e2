"""Every run stores every setting: the settings added after a run was stored get their defaults.

Runs used to store their settings without the ones left at their default (processes, sync, size,
precision; grad_clip only when it was missing). The fingerprint still leaves those out (a stored
result keeps it, and stays reusable: labs.training.config.config_fingerprint), so only the stored
settings change here. The defaults are written out: the ones the settings had when this ran.
"""

from django.db import migrations

DEFAULTS = {"grad_clip": None, "processes": 1, "sync": "no_sync", "size": "tiny", "precision": "fp32"}


def fill_settings(apps, schema_editor) -> None:
    LabRun = apps.get_model("labs", "LabRun")
    filled = []
    for run in LabRun.objects.only("pk", "config").iterator(chunk_size=500):
        missing = {name: value for name, value in DEFAULTS.items() if name not in run.config}
        if missing:
            run.config = run.config | missing
            filled.append(run)
    LabRun.objects.bulk_update(filled, ["config"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [("labs", "0005_code_version_without_prose")]

    # Backwards there is nothing to undo: a complete config reads back as the same run.
    operations = [migrations.RunPython(fill_settings, migrations.RunPython.noop)]
