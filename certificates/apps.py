from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CertificatesConfig(AppConfig):
    name = "certificates"
    verbose_name = _("Certificates")

    def ready(self) -> None:
        from accounts.dashboard import register_section
        from course.progress import register_course_end

        from . import checks, signals  # noqa: F401  (registers the SITE_URL check, connects the page-cache receiver)
        from .selectors import course_end, dashboard_context

        register_section(
            "certificates",
            template="certificates/_dashboard.html",
            context=dashboard_context,
            order=30,
            shows=("certificates",),
        )
        register_course_end(course_end)  # the course's progress: finished once the certificate is claimed
