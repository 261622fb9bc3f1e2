from django import template
from django.utils.safestring import mark_safe

from course.figures import fill_figures

register = template.Library()


@register.simple_tag(takes_context=True)
def body_with_figures(context, body_html: str, language: str) -> str:
    """A guide's stored (sanitized) HTML with its figures drawn in (course/figures.py), given the
    page's request: a figure may follow the page's query string and who is signed in."""
    # sanitized at sync; figures escape their data
    return mark_safe(fill_figures(body_html, language, context.get("request")))
