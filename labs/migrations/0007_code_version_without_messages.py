"""Results stored under the training code's version that hashed its messages' text move to the version
that leaves that text out.

labs/training/version.py hashed the syntax tree without docstrings; it now also leaves out the text of
messages marked for translation (`gettext_noop`: a setting's label and help, an error's wording), so
rewording a label no longer retrains every stored result. Between OLD (main at 17f6197) and NEW, the
package changed in version.py itself and in one label's text ("Accumulation steps (N)" became
"Accumulation factor (N)"), nothing that trains: NEW is also the version of the code with that label
put back. So a run stored under OLD is still valid, and gets the version and fingerprint it would have
now (the same move as 0005's).
"""

from functools import partial
from importlib import import_module

from django.db import migrations

OLD = "c4e47bb33c69"  # syntax without docstrings, at 17f6197
NEW = "e8f7f7f5e68f"  # syntax without docstrings and messages' text, after this change
move_results = import_module("labs.migrations.0005_code_version_without_prose").move_results


class Migration(migrations.Migration):
    dependencies = [("labs", "0006_complete_run_settings")]

    operations = [
        migrations.RunPython(partial(move_results, old=OLD, new=NEW), partial(move_results, old=NEW, new=OLD))
    ]
