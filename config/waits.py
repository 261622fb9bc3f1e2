"""How long a refused request must wait: the Retry-After header every 429 carries, and the same wait
said in words in the reader's language."""

import math
from datetime import datetime

from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext


def seconds_until(moment: datetime, now: datetime) -> int:
    """Whole seconds from `now` to `moment`, rounded up, at least 1: Retry-After's value."""
    return max(1, math.ceil((moment - now).total_seconds()))


def wait_in_words(seconds: int) -> str:
    """`seconds` as a reader says it: "40 seconds", "3 minutes", "2 hours and 5 minutes" (rounded up)."""
    if seconds < 60:
        return ngettext("%(n)d second", "%(n)d seconds", seconds) % {"n": seconds}
    minutes = math.ceil(seconds / 60)
    if minutes < 60:
        return ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    hours, minutes = divmod(minutes, 60)
    in_hours = ngettext("%(n)d hour", "%(n)d hours", hours) % {"n": hours}
    if not minutes:
        return in_hours
    in_minutes = ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    return _("%(hours)s and %(minutes)s") % {"hours": in_hours, "minutes": in_minutes}


def please_wait(seconds: int) -> str:
    return _("You are going a little fast. Please wait %(wait)s and try again.") % {"wait": wait_in_words(seconds)}


def with_retry_after(response: HttpResponse, seconds: int | None) -> HttpResponse:
    if seconds is not None:
        response["Retry-After"] = str(max(1, int(seconds)))
    return response
