"""Number and date formats that differ from Django's own for a language (FORMAT_MODULE_PATH).

Every language writes a date as day, month name, year (config/formats/<lang>/formats.py)."""

from datetime import date

from django.utils import dateformat
from django.utils.formats import get_format

MONTH_NAME_CHARACTERS = "bEFMN"  # the date format characters that write the month as a name


def month_names() -> list[str]:
    """The twelve months as DATE_FORMAT names them in the active language, for a script that writes
    a date the way the pages do (static/js/verify.js: day, name, year)."""
    letter = next(character for character in get_format("DATE_FORMAT") if character in MONTH_NAME_CHARACTERS)
    return [dateformat.format(date(2026, month, 1), letter) for month in range(1, 13)]
