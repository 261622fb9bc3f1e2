"""A Hindi or French UI string written exactly as its English source is an oversight, unless it is
meant: a technical term that content/glossary.yaml keeps in Latin script, a name, a format. Those
are listed, each with its reason, in locale/same_as_english.yaml; any other fails here."""

import ast
import re
from pathlib import Path

import pytest
import yaml
from django.conf import settings

LOCALE_DIR = Path(settings.BASE_DIR) / "locale"
ALLOWED = yaml.safe_load((LOCALE_DIR / "same_as_english.yaml").read_text(encoding="utf-8"))
LANGUAGES = ("hi", "fr")
PO_LINE_RE = re.compile(r"^(msgid|msgid_plural|msgstr(?:\[\d+\])?) (\".*\")$")


def same_as_english(path: Path) -> set[str]:
    """The message ids of the live entries (not `#~` obsolete ones) with a translation equal to
    the English singular or plural."""
    found, fields, key = set(), {}, None
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        line = line.strip()
        if not line:
            sources = {fields.get("msgid"), fields.get("msgid_plural")} - {None, ""}
            if fields.get("msgid") and sources & {text for name, text in fields.items() if name.startswith("msgstr")}:
                found.add(fields["msgid"])
            fields, key = {}, None
        elif match := PO_LINE_RE.match(line):
            key = match.group(1)
            fields[key] = ast.literal_eval(match.group(2))
        elif line.startswith('"') and key:
            fields[key] += ast.literal_eval(line)
    return found


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_string_stays_english_unless_it_is_meant_to(language):
    found = same_as_english(LOCALE_DIR / language / "LC_MESSAGES" / "django.po")
    allowed = ALLOWED.get(language) or {}
    assert sorted(found - allowed.keys()) == [], "translate these, or list them with a reason"
    assert sorted(allowed.keys() - found) == [], "translated or gone: take them off the list"
    assert all(isinstance(reason, str) and len(reason.split()) >= 2 for reason in allowed.values())
