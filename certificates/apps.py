from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CertificatesConfig(AppConfig):
    name = "certificates"
    verbose_name = _("Certificates")

    def ready(self) -> None:
        from . import signals  # noqa: F401  (connects the page-cache receiver)
