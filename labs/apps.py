from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LabsConfig(AppConfig):
    name = "labs"
    verbose_name = _("Labs")
