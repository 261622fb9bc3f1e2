"""The OpenAPI document of the site's JSON API (quizzes/openapi.py), served at /api/openapi.json.

Read-only, so exempt from CSRF: a POST gets the 405 of @require_GET, not the CSRF failure page.
"""

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from . import openapi


@csrf_exempt  # read-only, see the module docstring
@require_GET
def openapi_document(request: HttpRequest) -> JsonResponse:
    response = JsonResponse(openapi.document(), json_dumps_params={"ensure_ascii": False})
    response["Access-Control-Allow-Origin"] = "*"
    response["Cache-Control"] = "public, max-age=300"
    return response
