from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CertificatesConfig(AppConfig):
    name = "certificates"
    verbose_name = _("Certificates")

    def ready(self) -> None:
        from accounts.dashboard import register_section

        from . import checks, signals  # noqa: F401  (registers the SITE_URL check, connects the page-cache receiver)
        from .selectors import dashboard_context

        register_section(
            "certificates",
            template="certificates/_dashboard.html",
            context=dashboard_context,
            order=30,
            shows=("certificates",),
        )
