from django.urls import path

from . import explore_views, views

app_name = "labs"

urlpatterns = [
    path("", views.index, name="index"),
    path("presets/<slug:slug>/", views.preset, name="preset"),
    path("presets/<slug:slug>/run/", views.preset_run, name="preset_run"),
    path("runs/", views.run_submit, name="submit"),
    path("runs/<int:run_id>/", views.run_detail, name="run"),
    path("runs/<int:run_id>/cancel/", views.run_cancel, name="cancel"),
    path("runs/<int:run_id>/share/", views.run_share_reset, name="share_reset"),
    path("shared/<str:token>/", views.run_shared, name="shared"),
    path("compare/", views.compare, name="compare"),
    path("live/", views.live, name="live"),
    path("compare/runs.json", views.compare_json, name="compare_json"),
    path("figures/<slug:preset>/<slug:name>/", explore_views.explore, name="explore"),
    path("figures/<slug:preset>/<slug:name>/predict/", explore_views.predict, name="predict"),
    path("compare/curves.csv", views.compare_csv, name="compare_csv"),
]
