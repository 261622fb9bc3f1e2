"""The API's documentation page, /api/docs/: django-ninja's Swagger UI docs on our own template,
which loads Swagger UI from static/vendor/swagger-ui/ (ninja's page takes it from ninja's static
files when "ninja" is an installed app, else from a CDN, which our Content-Security-Policy forbids)."""

from pathlib import Path

from django.conf import settings
from django.urls import reverse
from ninja.openapi.docs import Swagger

TEMPLATE = "api/docs.html"


class VendoredSwagger(Swagger):
    # ninja renders `template` by name when "ninja" is an installed app, else the file `template_cdn`.
    template = TEMPLATE
    template_cdn = str(Path(settings.BASE_DIR) / "templates" / TEMPLATE)

    def __init__(self) -> None:
        # validatorUrl None: no badge image from validator.swagger.io.
        super().__init__(settings={"validatorUrl": None})

    def get_openapi_url(self, api, path_params: dict) -> str:
        return reverse("api:openapi")  # the document config/api.py serves itself
