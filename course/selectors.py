"""Read-only queries other parts of the site show."""

from .models import GuideRead


def dashboard_context(user) -> dict:
    """The learner dashboard's section (templates/course/_dashboard.html): the guides they have read."""
    return {"reads": GuideRead.objects.filter(user=user).select_related("guide").order_by("guide__order")}
