from django import template
from django.conf import settings
from django.urls import translate_url
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from course.typography import french_html, french_text

register = template.Library()


@register.simple_tag(takes_context=True)
def language_url(context, language: str) -> str:
    """The current page in another language (falls back to that language's home page)."""
    request = context["request"]
    # The header and the hreflang links ask for each language; resolve each URL once per request.
    cache = request.__dict__.setdefault("_language_urls", {})
    if language not in cache:
        path = request.get_full_path()
        url = translate_url(path, language)
        cache[language] = url if url != path or language == context.get("LANGUAGE_CODE") else f"/{language}/"
    return cache[language]


@register.simple_tag(takes_context=True)
def absolute_language_url(context, language: str) -> str:
    return settings.SITE_URL + language_url(context, language)


@register.filter
def duration(seconds: float) -> str:
    """Seconds as m:ss (or h:mm:ss)."""
    total = round(seconds or 0)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@register.filter
def minutes(seconds: float) -> int:
    return max(1, round((seconds or 0) / 60))


@register.filter
def get_item(mapping: dict, key: str):
    return mapping.get(key, "")


@register.filter(is_safe=True)
def typeset(value):
    """On a French page, text put together in a template ("85%", "Cours : examen final") set in
    French typography (course/typography.py); HTML (a {% filter typeset %} block) keeps its tags."""
    if get_language() != "fr":
        return value
    if isinstance(value, SafeString):
        return mark_safe(french_html(value))
    return french_text(str(value))
