from django.urls import path

from . import views

app_name = "labs"
urlpatterns = [path("", views.index, name="index"), path("presets/<slug:slug>/", views.preset, name="preset")]
