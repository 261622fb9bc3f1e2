import re
from functools import lru_cache

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

register = template.Library()
CODE_RE = re.compile(r"`([^`]+)`")


@register.filter
def quiz_text(value: str) -> SafeString:
    """Quiz text is plain text in which `code` spans are shown as code; everything else is escaped."""
    return _quiz_html(str(value))


# A graded answer's card shows its prompt, options, hint and explanation: the same few thousand
# texts over and over, so each is converted once per process (a learner's numbers make new prompts,
# hence the bound).
@lru_cache(maxsize=8192)
def _quiz_html(text: str) -> SafeString:
    return mark_safe(CODE_RE.sub(r"<code>\1</code>", escape(text)))
