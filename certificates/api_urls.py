"""API routes, included at the site root (no language prefix)."""

from django.urls import path

from . import api

app_name = "certificates_api"
urlpatterns = [
    path("api/certificates/status/<int:number>", api.status_list_credential, name="status_list"),
    path("api/certificates/<str:certificate_id>", api.certificate, name="certificate"),
    path(".well-known/jwks.json", api.jwks, name="jwks"),
]
