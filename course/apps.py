from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CourseConfig(AppConfig):
    name = "course"
    verbose_name = _("Course")

    def ready(self) -> None:
        from accounts.dashboard import register_section

        from . import page_cache  # connects the signals that retire cached pages
        from .selectors import dashboard_context

        register_section(
            "course",
            template="course/_dashboard.html",
            context=dashboard_context,
            order=10,
            shows=("reads", "quiz-results", "certificates"),  # the exam and its certificate end the course
            version=page_cache.content_version,  # the guides' titles and order
        )
