import re

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()
CODE_RE = re.compile(r"`([^`]+)`")


@register.filter
def quiz_text(value: str) -> SafeString:
    """Quiz text is plain text in which `code` spans are shown as code; everything else is escaped."""
    return mark_safe(CODE_RE.sub(r"<code>\1</code>", escape(str(value))))
