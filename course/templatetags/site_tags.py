from django import template
from django.conf import settings
from django.urls import NoReverseMatch, reverse
from django.utils import formats
from django.utils.encoding import iri_to_uri
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, override

from course.typography import french_html, french_text

register = template.Library()


@register.simple_tag(takes_context=True)
def language_url(context, language: str) -> str:
    """The current page in another language (falls back to that language's home page)."""
    request = context["request"]
    # The header and the hreflang links ask for each language; resolve each URL once per request.
    cache = request.__dict__.setdefault("_language_urls", {})
    if language not in cache:
        cache[language] = _page_in(request, language, context.get("LANGUAGE_CODE"))
    return cache[language]


def _page_in(request, language: str, current: str | None) -> str:
    """Built from the route the request resolved to, never from the path it asked for: a path such
    as `//evil.com/en/` resolves to nothing (it gets the home page), where Django's translate_url
    would read `evil.com` as a host and keep it in the link."""
    match = request.resolver_match
    if match is None:
        return f"/{language}/"
    try:
        with override(language):
            url = reverse(match.view_name, args=match.args, kwargs=match.kwargs)
    except NoReverseMatch:
        return f"/{language}/"
    if url == request.path and language != current:  # a page outside the language prefixes
        return f"/{language}/"
    query = request.META.get("QUERY_STRING", "")
    return f"{url}?{iri_to_uri(query)}" if query else url


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
def quantity(value: int) -> str:
    """A count on a French page with its digits grouped from 1 000 up ("2 668 mots"), as the French
    course writes quantities; other languages as before."""
    grouped = get_language() == "fr" and abs(value) >= 1000
    return formats.number_format(value, use_l10n=True, force_grouping=grouped) if grouped else str(value)


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
