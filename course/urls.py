from django.urls import path

from . import views

app_name = "course"

urlpatterns = [
    path("", views.home, name="home"),
    path("guides/", views.guide_index, name="guide_index"),
    path("course/", views.course_overview, name="overview"),
    path("guides/<slug:slug>/", views.guide_detail, name="guide_detail"),
    path("guides/<slug:slug>/notebook/", views.guide_notebook, name="guide_notebook"),
    path("search/", views.search, name="search"),
    path("newsletter/", views.newsletter_subscribe, name="newsletter_subscribe"),
    path("newsletter/confirm/<str:token>/", views.newsletter_confirm, name="newsletter_confirm"),
    path("newsletter/unsubscribe/<str:token>/", views.newsletter_unsubscribe, name="newsletter_unsubscribe"),
    path("support/", views.support, name="support"),
    path("csrf-token/", views.csrf_token, name="csrf_token"),
    path("manifest.webmanifest", views.web_manifest, name="manifest"),
    path("offline/", views.offline_page, name="offline"),
]
