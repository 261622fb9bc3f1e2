from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy

from config.ratelimit import rate_limit

from . import views
from .throttle import login_rate_limited

app_name = "accounts"


def _done(name: str):
    return reverse_lazy(f"accounts:{name}")


login_view = login_rate_limited(auth_views.LoginView.as_view(template_name="accounts/login.html"))

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("login/", login_view, name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("dashboard/", views.dashboard, name="dashboard"),
    path("profile/", views.profile_edit, name="profile"),
    path("tokens/", views.token_create, name="token_create"),
    path("tokens/<int:token_id>/delete/", views.token_delete, name="token_delete"),
    path(
        "password/change/",
        auth_views.PasswordChangeView.as_view(
            template_name="accounts/form_page.html", success_url=_done("password_change_done")
        ),
        name="password_change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(template_name="accounts/message.html"),
        name="password_change_done",
    ),
    path(
        "password/reset/",
        rate_limit("password_reset", method="POST")(
            views.PasswordResetView.as_view(
                template_name="accounts/form_page.html",
                email_template_name="accounts/email/password_reset.txt",
                subject_template_name="accounts/email/password_reset_subject.txt",
                success_url=_done("password_reset_done"),
            )
        ),
        name="password_reset",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetDoneView.as_view(template_name="accounts/message.html"),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="accounts/form_page.html", success_url=_done("password_reset_complete")
        ),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/complete/",
        auth_views.PasswordResetCompleteView.as_view(template_name="accounts/message.html"),
        name="password_reset_complete",
    ),
]
