import re
from datetime import UTC, datetime

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()
CODE_RE = re.compile(r"`([^`]+)`")


@register.filter
def quiz_text(value: str) -> SafeString:
    """Quiz text is plain text in which `code` spans are shown as code; everything else is escaped."""
    return mark_safe(CODE_RE.sub(r"<code>\1</code>", escape(str(value))))


@register.filter
def iso_instant(value: datetime) -> str:
    """An aware datetime as an ISO 8601 instant in UTC (`2026-12-01T09:30:00.000Z`), the form every
    browser's Date.parse reads (Django's `O` offset, `+0000`, is not in it)."""
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
