from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LabsConfig(AppConfig):
    name = "labs"
    verbose_name = _("Labs")

    def ready(self) -> None:
        # labs sits above accounts and course: they offer the extension points, labs fills them.
        from accounts.dashboard import register_section
        from course.figures import register_figure_provider

        from .figures import reference_figures
        from .selectors import dashboard_context

        register_figure_provider(reference_figures)
        register_section("labs", template="labs/_dashboard.html", context=dashboard_context, order=40)
