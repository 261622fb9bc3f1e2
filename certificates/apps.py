from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CertificatesConfig(AppConfig):
    name = "certificates"
    verbose_name = _("Certificates")

    def ready(self) -> None:
        from accounts.dashboard import register_section
        from accounts.learner_versions import bump_when_changed
        from course.progress import register_course_end

        from . import checks, signals  # noqa: F401  (registers the SITE_URL check, connects the page-cache receiver)
        from .models import Certificate
        from .selectors import course_end, dashboard_context

        bump_when_changed(Certificate, "certificates")  # revocations and supersessions: services.py bumps

        register_section(
            "certificates",
            template="certificates/_dashboard.html",
            context=dashboard_context,
            order=30,
            shows=("certificates",),
        )
        register_course_end(course_end)  # the course's progress: finished once the certificate is claimed
