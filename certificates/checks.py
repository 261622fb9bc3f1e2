"""System checks, run by manage.py (migrate in bin/setup, runserver, check) before the site starts."""

from django.conf import settings
from django.core import checks

from config.env import site_url_port_warning
from config.site_url import site_url_host_refused


@checks.register()
def site_url_answers(app_configs, **kwargs) -> list[checks.CheckMessage]:
    """SITE_URL must name an address the site answers at: certificates keep it forever."""
    found = []
    refused = site_url_host_refused(settings.SITE_URL, settings.ALLOWED_HOSTS, settings.DEBUG)
    if refused:
        found.append(checks.Warning(refused, id="certificates.W001"))
    # PORT is the run command's port (bin/run); runserver on another port does not set it.
    other_port = site_url_port_warning(settings.SITE_URL, settings.PORT)
    if other_port:
        found.append(checks.Warning(other_port, id="certificates.W002"))
    return found
