"""Every UI string is translated in hi and fr: no catalog entry is empty or fuzzy, and none is
missing, which makemessages, run on a copy of the source, would add empty (or fuzzy, from a
similar old one). A fault is named with its message id, to translate in locale/<lang>/LC_MESSAGES/django.po."""

import ast
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
LANGUAGES = ("hi", "fr")
PO_STRING_RE = re.compile(r'^(msgid|msgid_plural|msgstr(?:\[\d+\])?) (".*")$')
NOT_SOURCE = (".*", "var", "node_modules", "__pycache__", "test-artifacts", "vendor", "*.mo", "media")


@dataclass
class Entry:
    msgid: str
    msgstrs: list[str]
    fuzzy: bool


def catalog(path: Path) -> list[Entry]:
    """The live entries of a .po file (obsolete `#~` ones are not read), the header left out."""
    entries, fields, fuzzy, key = [], {}, False, None

    def flush() -> None:
        if fields.get("msgid"):
            entries.append(Entry(fields["msgid"], [v for k, v in fields.items() if k.startswith("msgstr")], fuzzy))

    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = line.strip()
        if not line:
            flush()
            fields, fuzzy, key = {}, False, None
        elif line.startswith("#,"):
            fuzzy = fuzzy or "fuzzy" in line
        elif match := PO_STRING_RE.match(line):
            key = match.group(1)
            fields[key] = ast.literal_eval(match.group(2))
        elif line.startswith('"') and key:
            fields[key] += ast.literal_eval(line)
    flush()
    return entries


def faults(path: Path) -> list[str]:
    found = []
    for entry in catalog(path):
        if entry.fuzzy:
            found.append(f"fuzzy: {entry.msgid[:100]!r}")
        elif not all(entry.msgstrs):
            found.append(f"untranslated: {entry.msgid[:100]!r}")
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_catalog_entry_is_empty_or_fuzzy(language):
    path = ROOT / "locale" / language / "LC_MESSAGES" / "django.po"
    assert len(catalog(path)) > 500  # the reader found the whole file
    found = faults(path)
    assert not found, f"{path.relative_to(ROOT)}:\n" + "\n".join(found)


def test_every_string_of_the_source_is_in_the_catalogs(tmp_path):
    """makemessages on a copy, so the committed catalogs stay as they are."""
    copy = tmp_path / "site"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    command = [sys.executable, "manage.py", "makemessages", *(f"--locale={lang}" for lang in LANGUAGES)]
    subprocess.run(command, cwd=copy, check=True, capture_output=True, timeout=120)
    found = {lang: faults(copy / "locale" / lang / "LC_MESSAGES" / "django.po") for lang in LANGUAGES}
    assert not any(found.values()), "\n".join(
        f"{lang}: {fault}" for lang, lang_faults in found.items() for fault in lang_faults
    )


def test_the_reader_finds_empty_fuzzy_and_plural_entries(tmp_path):
    po = tmp_path / "django.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n'
        'msgid "Done"\nmsgstr "Fini"\n\n'
        '#, fuzzy, python-format\nmsgid "Step %(n)s"\nmsgstr "Étape %(n)s"\n\n'
        'msgid "Left"\nmsgstr ""\n\n'
        'msgid "%(n)s run"\nmsgid_plural "%(n)s runs"\nmsgstr[0] "%(n)s exécution"\nmsgstr[1] ""\n\n'
        '#~ msgid "Gone"\n#~ msgstr ""\n',
        encoding="utf-8",
    )
    assert [entry.msgid for entry in catalog(po)] == ["Done", "Step %(n)s", "Left", "%(n)s run"]
    assert faults(po) == ["fuzzy: 'Step %(n)s'", "untranslated: 'Left'", "untranslated: '%(n)s run'"]
