from django import template
from django.utils.safestring import mark_safe

from course.figures import fill_figures

register = template.Library()


@register.filter
def with_figures(body_html: str, language: str) -> str:
    """A guide's stored (sanitized) HTML with its figures drawn in (course/figures.py)."""
    return mark_safe(fill_figures(body_html, language))  # sanitized at sync; figures escape their data
