from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CourseConfig(AppConfig):
    name = "course"
    verbose_name = _("Course")

    def ready(self) -> None:
        from accounts.dashboard import register_section

        from . import page_cache  # noqa: F401 - connects the signals that retire cached pages
        from .selectors import dashboard_context

        register_section("course", template="course/_dashboard.html", context=dashboard_context, order=10)
