"""The learner dashboard's sections, contributed by the apps that own them.

accounts sits below course, quizzes, certificates and labs, so it never imports them: each registers
its section from its AppConfig.ready():

    register_section("certificates", template="certificates/_dashboard.html", context=dashboard_context,
                     order=30, shows=("certificates",))

Sections are rendered in increasing `order` (course 10, quizzes 20, certificates 30, labs 40).

A section that names the kinds of the learner's data it `shows` is cached per learner and language
in Django's cache, under the current versions of those kinds (accounts/learner_versions.py: the
services that change the data bump them), so its context function and template run only when
something it shows has changed. A section with a form caches its context instead of its HTML
(`cache="context"`): the form's CSRF token belongs to this request. What every learner sees alike
(the guides) is keyed by the section's `version` too, and a section that changes by itself at a
known time (a review falling due) gives it with `expires`. Every section's cached entry comes in
one round trip to the cache; when the cache cannot be reached, the sections are rendered anew.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from django.core.cache import cache
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from redis import RedisError

from . import learner_versions

ENTRY_TIMEOUT = 3600  # seconds; what no version covers (a quiz's title after a content sync) waits this long


@dataclass(frozen=True)
class Section:
    template: str  # a fragment template, rendered with `context` (and the usual context processors)
    context: Callable[..., dict]  # the learner (a User) -> the template's variables
    order: int  # where the section sits: lower first
    shows: tuple[str, ...] = ()  # the kinds of the learner's data it shows; none: rendered every time
    cache: Literal["html", "context"] = "html"  # "context" for a section with a form (its CSRF token)
    version: Callable[[], str | None] | None = None  # of what it shows of everyone's; None: not cached now
    expires: Callable[[dict], datetime | None] | None = None  # its context -> when it changes by itself


_sections: dict[str, Section] = {}


def register_section(name: str, *, template: str, context: Callable[..., dict], order: int, **caching) -> None:
    """Adds (or, under the same name, replaces) a section of the dashboard; `caching`: Section's
    shows, cache, version and expires."""
    _sections[name] = Section(template=template, context=context, order=order, **caching)


def render_sections(request: HttpRequest, **request_context) -> list[SafeString]:
    """Every registered section for the signed-in learner, in order, as HTML. `request_context`:
    variables made for this request (a form), given to the templates and never cached."""
    ordered = sorted(_sections.items(), key=lambda item: item[1].order)
    keys = _entry_keys(request.user.pk, ordered)
    try:
        found = cache.get_many(keys.values()) if keys else {}
    except RedisError:
        keys, found = {}, {}
    now, html = timezone.now(), []
    for name, section in ordered:
        key = keys.get(name)
        expires, entry = found.get(key, (None, None))
        if entry is None or (expires is not None and expires <= now):
            entry = section.context(request.user)
            if section.cache == "html":
                entry = render_to_string(section.template, entry, request)
            if key is not None:
                _store(key, entry, section.expires(entry) if section.expires else None)
        if section.cache == "html":
            html.append(mark_safe(entry))  # our own template's output, as it was rendered
        else:
            html.append(render_to_string(section.template, {**entry, **request_context}, request))
    return html


def _entry_keys(user_id: int, sections: list[tuple[str, Section]]) -> dict[str, str]:
    """The cache key of each cached section, from the current versions (none when the cache is down)."""
    cached = [(name, section) for name, section in sections if section.shows]
    try:
        versions = learner_versions.current(user_id, {kind for _name, s in cached for kind in s.shows})
        shared = {s.version: s.version() for _name, s in cached if s.version}  # each asked once
    except RedisError:
        return {}
    language = get_language()
    keys = {}
    for name, section in cached:
        parts = [versions[kind] for kind in section.shows]
        if section.version:
            if shared[section.version] is None:
                continue
            parts.append(shared[section.version])
        keys[name] = f"dashboard:{name}:{section.cache}:{user_id}:{language}:{'.'.join(parts)}"
    return keys


def _store(key: str, entry: str | dict, expires: datetime | None) -> None:
    """Stored with the time it expires, which a page compares with its own clock."""
    try:
        cache.set(key, (expires, entry), ENTRY_TIMEOUT)
    except RedisError:
        pass  # the learner has the section; the next page renders it again
