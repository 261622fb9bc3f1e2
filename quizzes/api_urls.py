"""API routes, included at the site root (no language prefix)."""

from django.urls import path

from . import api

app_name = "quizzes_api"
urlpatterns = [
    path("api/openapi.json", api.openapi_document, name="openapi"),
]
