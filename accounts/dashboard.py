"""The learner dashboard's sections, contributed by the apps that own them.

accounts sits below course, quizzes, certificates and labs, so it never imports them: each registers
its section from its AppConfig.ready():

    register_section("labs", template="labs/_dashboard.html", context=dashboard_context, order=40)

Sections are rendered in increasing `order` (course 10, quizzes 20, certificates 30, labs 40).
"""

from collections.abc import Callable
from dataclasses import dataclass

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils.safestring import SafeString


@dataclass(frozen=True)
class Section:
    template: str  # a fragment template, rendered with `context` (and the usual context processors)
    context: Callable[..., dict]  # the learner (a User) -> the template's variables
    order: int  # where the section sits: lower first


_sections: dict[str, Section] = {}


def register_section(name: str, *, template: str, context: Callable[..., dict], order: int) -> None:
    """Adds (or, under the same name, replaces) a section of the dashboard."""
    _sections[name] = Section(template=template, context=context, order=order)


def render_sections(request: HttpRequest) -> list[SafeString]:
    """Every registered section for the signed-in learner, in order, as HTML."""
    ordered = sorted(_sections.values(), key=lambda section: section.order)
    return [render_to_string(s.template, s.context(request.user), request) for s in ordered]
