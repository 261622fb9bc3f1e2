from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CourseConfig(AppConfig):
    name = "course"
    verbose_name = _("Course")

    def ready(self) -> None:
        from accounts.dashboard import register_section
        from accounts.learner_versions import bump_when_changed

        from . import page_cache  # connects the signals that retire cached pages
        from .models import GuideRead
        from .selectors import dashboard_context

        bump_when_changed(GuideRead, "reads")  # the dashboard shows the guides read, and when

        register_section(
            "course",
            template="course/_dashboard.html",
            context=dashboard_context,
            order=10,
            shows=("reads", "quiz-results", "certificates"),  # the exam and its certificate end the course
            version=page_cache.content_version,  # the guides' titles and order
        )
