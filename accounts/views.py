from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from config.ratelimit import rate_limit

from .dashboard import render_sections
from .forms import ApiTokenForm, ProfileForm, SignUpForm
from .models import ApiToken
from .services import account_sign_up, profile_for


class PasswordResetView(auth_views.PasswordResetView):
    """Django's, but the e-mail's link starts with SITE_URL, as every e-mail of the site does: Django
    builds it from the Host the request named, which a forged request (through a proxy that passes any
    Host on) sets to a site that would then receive the learner's reset token."""

    def form_valid(self, form):
        self.extra_email_context = {"site_url": settings.SITE_URL}
        return super().form_valid(form)


@require_http_methods(["GET", "POST"])
@rate_limit("signup", method="POST")
def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = account_sign_up(
            username=form.cleaned_data["username"],
            email=form.cleaned_data["email"],
            password=form.cleaned_data["password1"],
            full_name=form.cleaned_data["full_name"],
            language=get_language(),
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request, _("Welcome! Your account is ready. We sent a message to the address you gave: check your email.")
        )
        return redirect(_safe_next(request) or "accounts:dashboard")
    return render(request, "accounts/signup.html", {"form": form}, status=400 if form.errors else 200)


def _safe_next(request: HttpRequest) -> str:
    """The `next` URL only if it stays on this site: never an open redirect."""
    url = request.GET.get("next", "")
    safe = url_has_allowed_host_and_scheme(url, allowed_hosts={request.get_host()}, require_https=request.is_secure())
    return url if safe else ""


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    # The sections come from this app (greeting, tokens) and the others (accounts/dashboard.py).
    sections = render_sections(request, token_form=ApiTokenForm())
    return render(request, "accounts/dashboard.html", {"sections": sections})


@login_required
@require_http_methods(["GET", "POST"])
def profile_edit(request: HttpRequest) -> HttpResponse:
    profile = profile_for(request.user)
    form = ProfileForm(request.POST or None, initial={"full_name": profile.full_name})
    if request.method == "POST" and form.is_valid():
        profile.full_name = form.cleaned_data["full_name"].strip()
        profile.save(update_fields=["full_name"])
        messages.success(request, _("Your name was saved."))
        return redirect("accounts:dashboard")
    return render(request, "accounts/profile.html", {"form": form}, status=400 if form.errors else 200)


@never_cache  # the page shows the raw token once: no browser or proxy may keep a copy (no-store)
@login_required
@require_POST
@rate_limit("api_token_create", key="user")
def token_create(request: HttpRequest) -> HttpResponse:
    form = ApiTokenForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Please give the token a name."))
        return redirect("accounts:dashboard")
    _token, raw = ApiToken.issue(user=request.user, name=form.cleaned_data["name"])
    return render(request, "accounts/token_created.html", {"raw_token": raw})


@login_required
@require_POST
def token_delete(request: HttpRequest, token_id: int) -> HttpResponse:
    get_object_or_404(ApiToken, pk=token_id, user=request.user).delete()
    messages.success(request, _("The token was revoked."))
    return redirect("accounts:dashboard")
