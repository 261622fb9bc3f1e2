from django.urls import path

from . import certificate_views

app_name = "certificates"
urlpatterns = [
    path("verify/", certificate_views.verify_credential, name="verify_credential"),  # before the ID route
    path("<str:certificate_id>/", certificate_views.verify, name="verify"),
    path("<str:certificate_id>/certificate.pdf", certificate_views.pdf, name="pdf"),
    path("<str:certificate_id>/correct-name/", certificate_views.correct_name, name="correct_name"),
]
