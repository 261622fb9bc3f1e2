from django import template
from django.utils.formats import number_format
from django.utils.translation import get_language

from labs.charts import sci
from labs.forms import RunForm

register = template.Library()
DASH = "—"


def _number(value) -> float | None:
    """Metrics missing from a run (not measured yet) reach templates as None or ""."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


@register.filter
def metric(value, digits: int = 4) -> str:
    number = _number(value)
    return DASH if number is None else number_format(number, decimal_pos=digits)


def _percent_sign() -> str:
    """French joins a number to its % with a narrow no-break space (course/typography.py)."""
    return "\u202f%" if get_language() == "fr" else " %"


@register.filter
def percent(value) -> str:
    number = _number(value)
    return DASH if number is None else number_format(100 * number, decimal_pos=1) + _percent_sign()


@register.filter
def progress(value) -> str:
    """A run's progress, a whole percentage: "45 %"."""
    return f"{value}{_percent_sign()}"


@register.filter
def scientific(value) -> str:
    """Tiny relative errors (1e-7) and big ones (0.3) on one scale, as the figures write them."""
    return sci(_number(value))


@register.filter
def setting_label(name: str) -> str:
    """A run's setting, stored under the API's name (effective_batch_size), as the lab form labels it."""
    field = RunForm.base_fields.get(name)
    return field.label if field else name
