"""The labs JSON API, included at the site root (no language prefix)."""

from django.urls import path

from . import api

app_name = "labs_api"

urlpatterns = [
    path("api/labs/runs", api.run_create, name="runs"),
    path("api/labs/runs/<int:run_id>", api.run_detail, name="run"),
    path("api/labs/runs/<int:run_id>/cancel", api.run_cancel, name="cancel"),
    path("api/labs/queue", api.queue, name="queue"),
]
