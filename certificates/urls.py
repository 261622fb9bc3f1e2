"""Certificate pages, included under the language prefix at the site root."""

from django.urls import path

from . import views

app_name = "certificates"
urlpatterns = [
    # The claim is posted from the exam's result page and keeps that page's address.
    path("quizzes/<slug:slug>/attempts/<str:key>/certificate/", views.claim, name="claim"),
    path("certificates/verify/", views.verify_credential, name="verify_credential"),  # before the ID route
    path("certificates/lookup/", views.lookup, name="lookup"),  # before the ID route
    path("certificates/<str:certificate_id>/", views.verify, name="verify"),
    path("certificates/<str:certificate_id>/og.png", views.share_image, name="og_image"),
    path("certificates/<str:certificate_id>/certificate.pdf", views.pdf, name="pdf"),
    path("certificates/<str:certificate_id>/correct-name/", views.correct_name, name="correct_name"),
]
