"""Read-only queries other parts of the site show."""

from django.db.models import Q
from django.utils.translation import get_language

from .models import GuidePage, GuideRead
from .progress import course_end, course_progress, quiz_results


def published_pages(language: str):
    """The course's guide pages in one language, in course order."""
    return GuidePage.objects.filter(language=language, guide__is_published=True).select_related("guide")


def first_guide_page(language: str) -> GuidePage | None:
    """Where the course starts."""
    return published_pages(language).only("title", "guide__slug", "guide__order").first()


def next_guide_page(guide, language: str) -> GuidePage | None:
    """The published guide that comes after `guide` in the course, in `language` (None after the last)."""
    after = Q(guide__order__gt=guide.order) | Q(guide__order=guide.order, guide__slug__gt=guide.slug)
    later = published_pages(language).filter(after)
    return later.only("title", "guide__slug", "guide__order").order_by("guide__order", "guide__slug").first()


def dashboard_context(user) -> dict:
    """The learner dashboard's section (templates/course/_dashboard.html): every guide in course
    order, in the page's language, with when they last opened it and how its quiz went, and the
    exam and certificate after them."""
    pages = published_pages(get_language()).only("title", "guide__slug", "guide__order")
    last_read = dict(GuideRead.objects.filter(user=user).values_list("guide__slug", "last_read_at"))
    # The guides read are those with a last read: one query for both.
    progress = course_progress(pages, read=set(last_read), results=quiz_results(user), end=course_end(user))
    return {"progress": progress, "last_read": last_read}
